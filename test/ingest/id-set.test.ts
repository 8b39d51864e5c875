// The compact set of a refresh's file ids answers as a Set of strings does, whatever the strings (any
// Unicode, the empty string, strings that differ only in a byte) and however many (the table and the
// buffers grow past their first sizes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../src/ingest/id-set.js';

describe('IdSet', () => {
  it('answers add and has as a Set of strings does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.stringMatching(/^p[0-9]{1,4}$/)), {
          maxLength: 400,
        }),
        fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 50 }),
        (added, asked) => {
          const ids = new IdSet();
          const expected = new Set<string>();
          for (const id of added) {
            expect(ids.add(id)).toBe(!expected.has(id));
            expected.add(id);
          }
          expect(ids.size).toBe(expected.size);
          for (const id of [...added, ...asked]) expect(ids.has(id)).toBe(expected.has(id));
        },
      ),
    );
  });

  it('holds a million ids past every first size, and nothing once cleared', () => {
    const ids = new IdSet();
    const count = 1_000_000;
    let added = 0;
    for (let n = 0; n < count; n++) if (ids.add(`fp${String(100_000_000 + n).padStart(12, '0')}`)) added++;
    expect(added).toBe(count);
    expect(ids.size).toBe(count);
    for (const n of [0, 1, 511, 512, 65_535, 999_999]) {
      expect(ids.has(`fp${String(100_000_000 + n).padStart(12, '0')}`)).toBe(true);
      expect(ids.add(`fp${String(100_000_000 + n).padStart(12, '0')}`)).toBe(false);
    }
    expect(ids.has(`fp${String(100_000_000 + count).padStart(12, '0')}`)).toBe(false);
    // Same length, one byte apart; and a longer id that starts with a member's bytes.
    expect(ids.has('fp000100000000 ')).toBe(false);
    expect(ids.has('fp000100000001'.replace('1', '2'))).toBe(false);
    ids.clear();
    expect(ids.size).toBe(0);
    expect(ids.has('fp000100000000')).toBe(false);
    expect(ids.add('fp000100000000')).toBe(true);
  });

  it('tells apart two ids of the same 32-bit hash (found by search), by their bytes', () => {
    const ids = new IdSet();
    expect(ids.add('p2039599')).toBe(true);
    expect(ids.has('p2222382')).toBe(false);
    expect(ids.add('p2222382')).toBe(true);
    expect(ids.has('p2039599') && ids.has('p2222382')).toBe(true);
    expect(ids.size).toBe(2);
  });

  it('tells apart strings whose hashes land in the same slot', () => {
    // Enough short ids that many share a first slot (a table of 1,024 to 4,096 slots).
    const ids = new IdSet();
    const all = Array.from({ length: 2000 }, (_, n) => n.toString(36));
    for (const id of all) ids.add(id);
    for (const id of all) expect(ids.has(id)).toBe(true);
    for (let n = 2000; n < 4000; n++) expect(ids.has(n.toString(36))).toBe(false);
  });
});
