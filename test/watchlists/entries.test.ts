// Entries resolved and added (src/watchlists/entries.ts): a watchlist never passes a million entries.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import {
  addEntries,
  entryId,
  entrySeq,
  MAX_WATCHLIST_ENTRIES,
  parseEntry,
} from '../../src/watchlists/entries.js';
import { PEOPLE, seed } from '../helpers/app.js';

describe('addEntries', () => {
  let store: SqliteStore;
  beforeEach(async () => {
    store = openSqliteStore(':memory:');
    await seed(store, 'people', PEOPLE);
    await store.createWatchlist({
      id: 'wl_1',
      key_id: 'key_1',
      name: 'Full',
      created_at: '2026-11-25T10:00:00.000Z',
    });
  });
  afterEach(() => store.close());

  const entries = [
    parseEntry({ person: { id: 'fp000000000001' } }, '$'),
    parseEntry({ person: { id: 'fp000000000002' } }, '$'),
  ];

  it('refuses entries that would take a watchlist past a million, adding none', async () => {
    const full = { id: 'wl_1', size: MAX_WATCHLIST_ENTRIES - 1 };
    await expect(addEntries(store, full, entries)).rejects.toMatchObject({
      status: 413,
      code: 'payload_too_large',
      extensions: { max_items: MAX_WATCHLIST_ENTRIES },
    });
    expect((await store.getWatchlist('key_1', 'wl_1'))!.size).toBe(0);
  });

  it('adds what fits, and answers entries not found without counting them', async () => {
    const nearlyFull = { id: 'wl_1', size: MAX_WATCHLIST_ENTRIES - 2 };
    const missing = parseEntry({ person: { id: 'fp000000000404' }, ref: 'x' }, '$');
    const { results } = await addEntries(store, nearlyFull, [...entries, missing]);
    expect(results.map((r) => r.status)).toEqual(['watching', 'watching', 'not_found']);
  });
});

describe('entry ids', () => {
  it('read back to the seq they were made of, and nothing else does', () => {
    for (const seq of [1, 42, 2 ** 40]) expect(entrySeq(entryId(seq))).toBe(seq);
    for (const text of ['we_0', 'we_01', 'we_', '42', 'we_1e3', 'we_1234567890123456'])
      expect(entrySeq(text)).toBeUndefined();
  });
});
