// The suppression role's contract on every backend: records deleted for good, and the hashes that keep them out.
import { beforeEach, expect, it } from 'vitest';
import type { RecordStore, RecordToStore } from '../../../src/store/records.js';
import type { SuppressionStore } from '../../../src/store/suppression.js';
import type { Identifier } from '../../../src/vocabulary/entities.js';

const person = (n: number, identifiers: Identifier[]): RecordToStore => {
  const id = `fp${String(n).padStart(12, '0')}`;
  return { id, body: `{"id":"${id}"}`, etag: `"etag-${id}"`, identifiers };
};
const email = (value: string): Identifier => ({ kind: 'work_email', value });

/** Registers the suppression contract's tests; `open()` is the suite's fresh, empty store. */
export function suppressionContract(open: () => RecordStore & SuppressionStore) {
  let store: RecordStore & SuppressionStore;
  beforeEach(() => {
    store = open();
  });

  it('suppresses: deletes the records, remembers the hashes, and forgets a whole suppression', async () => {
    await store.upsert('people', [person(1, [email('a@x.com')]), person(2, [email('b@x.com')])]);
    expect(await store.suppress('people', ['fp000000000001', 'fp000000000009'], ['h1', 'h2'])).toBe(1);
    expect(await store.getRecord('people', 'fp000000000001')).toBeUndefined();
    expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual([]);
    expect(await store.count('people')).toBe(1);
    await store.suppress('people', [], ['h2', 'h3']);
    expect(await store.suppressedHashes('people')).toEqual(new Set(['h1', 'h2', 'h3']));
    expect(await store.suppressedHashes('companies')).toEqual(new Set());

    expect(await store.unsuppress('companies', 'h1')).toBe(0);
    expect(await store.unsuppress('people', 'h1')).toBe(2);
    expect(await store.suppressedHashes('people')).toEqual(new Set(['h2', 'h3']));
    expect(await store.unsuppress('people', 'h2')).toBe(2);
    expect(await store.suppressedHashes('people')).toEqual(new Set());
  });
}
