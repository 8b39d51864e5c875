// Test helper: strings made of the characters people mistype into identifiers, so properties explore
// the edges (case, dots, slashes, encodings, non-ASCII, whitespace) rather than random code points.
import fc from 'fast-check';
import { expect } from 'vitest';

const TYPED_CHARS = [...'abcwxWK019.-_/:@?#% \t', ...'üÜßİıéЖ中。'];

export const typedInput = (maxLength = 24) => fc.string({ unit: fc.constantFrom(...TYPED_CHARS), maxLength });

/** Asserts that whatever `normalise` accepts among `inputs`, it leaves unchanged when normalised again. */
export function assertIdempotent(normalise: (input: string) => string, inputs = typedInput()): void {
  fc.assert(
    fc.property(inputs, (input) => {
      let once: string;
      try {
        once = normalise(input);
      } catch {
        return;
      }
      expect(normalise(once)).toBe(once);
    }),
    { numRuns: 2000 },
  );
}
