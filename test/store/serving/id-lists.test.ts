// The ids an identifier names, as the serving index keeps them: always in order, each once, until crowded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CROWDED, listedIds, MAX_LISTED, withId, withoutId } from '../../../src/store/serving/id-lists.js';

const recordId = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const operation = fc.record({ add: fc.boolean(), id: recordId });

describe('an identifier’s id list', () => {
  it('holds the ids added and not removed, in code-unit order, each once', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        let list: string | undefined;
        const expected = new Set<string>();
        for (const { add, id } of operations) {
          if (add) {
            list = withId(list, id);
            expected.add(id);
          } else if (list !== undefined) {
            list = withoutId(list, id);
            expected.delete(id);
          }
        }
        const sorted = [...expected].sort();
        if (sorted.length === 0) expect(list === undefined || list === '').toBe(list !== CROWDED);
        else expect(listedIds(list!, sorted.length)).toEqual(sorted);
        expect(listedIds(list ?? 'x', 3).length).toBeLessThanOrEqual(3);
      }),
    );
  });

  it('becomes crowded past its limit, and stays crowded: lookups then ask the store of record', () => {
    let list: string | undefined;
    for (let i = 0; i < MAX_LISTED; i++) list = withId(list, `id${String(i).padStart(5, '0')}`);
    expect(listedIds(list!, 2)).toEqual(['id00000', 'id00001']);
    list = withId(list, 'one-more');
    expect(list).toBe(CROWDED);
    expect(withoutId(list, 'id00000')).toBe(CROWDED);
    expect(withId(list, 'another')).toBe(CROWDED);
  });
});
