import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineCounter } from '../../../src/ingest/match/line-counter.js';

/** Splits bytes into chunks at the given cut points. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

describe('line numbers of offsets in a stream read in chunks', () => {
  it('equal one more than the newlines before the offset, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '\n', '\r', 'é', ','), maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (text, cuts, asked) => {
          const bytes = Buffer.from(text);
          const counter = new LineCounter();
          const offsets = asked.map((a) => a % (bytes.length + 1)).sort((a, b) => a - b);
          let start = 0;
          for (const chunk of chunked(bytes, cuts)) {
            counter.push(chunk);
            const end = start + chunk.length;
            while (offsets.length > 0 && offsets[0]! <= end) {
              const offset = offsets.shift()!;
              const expected = bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
              expect(counter.lineAt(offset)).toBe(expected);
            }
            start = end;
          }
        },
      ),
    );
  });
});
