// pairsNotIn: which identifier rows a re-upsert deletes and which it adds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type IdentifierPair, pairsNotIn } from '../../../src/store/sqlite/record-writes.js';

const pair: fc.Arbitrary<IdentifierPair> = fc.tuple(
  fc.integer({ min: 0, max: 12 }),
  fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'b', ' ', '1', 'é') }),
);

describe('pairsNotIn', () => {
  it('gives the pairs of the first list, in order, that the second does not hold by kind and value', () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), fc.array(pair, { maxLength: 8 }), (from, to) => {
        const held = (p: IdentifierPair) => to.some(([kind, value]) => kind === p[0] && value === p[1]);
        expect(pairsNotIn(from, to)).toEqual(from.filter((p) => !held(p)));
      }),
      { numRuns: 2000 },
    );
  });

  it('tells a kind from a value that starts with a number', () => {
    expect(pairsNotIn([[1, '2 x']], [[12, ' x']])).toEqual([[1, '2 x']]);
    expect(pairsNotIn([[1, '2 x']], [[1, '2 x']])).toEqual([]);
  });
});
