// The watchlists role's contract on every backend: a key's own watchlists, entries kept once per record in
// the order first added, paged, removed, and asked about a page of events' ids at a time.
import { beforeEach, expect, it } from 'vitest';
import type { NewWatchEntry, WatchlistStore } from '../../../src/store/watchlists.js';

const person = (n: number, ref: string | null = null): NewWatchEntry => ({
  kind: 'person',
  record_id: `fp${String(n).padStart(12, '0')}`,
  ref,
});
const company = (n: number, ref: string | null = null): NewWatchEntry => ({
  kind: 'company',
  record_id: `f${String(n).padStart(12, '0')}`,
  ref,
});
const at = '2026-11-25T10:00:00.000Z';

/** Registers the watchlists contract's tests; `open()` is the suite's fresh, empty store. */
export function watchlistsContract(open: () => WatchlistStore) {
  let store: WatchlistStore;
  beforeEach(() => {
    store = open();
  });

  it("keeps a key's watchlists to that key, oldest first, and deletes one with its entries", async () => {
    await store.createWatchlist({ id: 'wl_b', key_id: 'key_1', name: 'Champions', created_at: at });
    await store.createWatchlist({
      id: 'wl_a',
      key_id: 'key_1',
      name: 'Deals',
      created_at: '2026-11-25T11:00:00.000Z',
    });
    await store.createWatchlist({ id: 'wl_c', key_id: 'key_2', name: 'Other', created_at: at });
    expect(await store.getWatchlist('key_1', 'wl_b')).toEqual({
      id: 'wl_b',
      key_id: 'key_1',
      name: 'Champions',
      size: 0,
      created_at: at,
    });
    expect(await store.getWatchlist('key_2', 'wl_b')).toBeUndefined();
    expect((await store.listWatchlists('key_1')).map((w) => w.id)).toEqual(['wl_b', 'wl_a']);
    expect(await store.listWatchlists('key_3')).toEqual([]);

    await store.addWatchEntries('wl_b', [person(1), company(1)]);
    expect(await store.deleteWatchlist('key_2', 'wl_b')).toBe(false);
    expect(await store.deleteWatchlist('key_1', 'wl_b')).toBe(true);
    expect(await store.deleteWatchlist('key_1', 'wl_b')).toBe(false);
    expect(await store.getWatchlist('key_1', 'wl_b')).toBeUndefined();
    expect(await store.listWatchEntries('wl_b', 0, 10)).toEqual([]);
  });

  it('keeps one entry per kind and record, in the order first added, with the latest ref', async () => {
    await store.createWatchlist({ id: 'wl_1', key_id: 'key_1', name: 'List', created_at: at });
    expect(await store.addWatchEntries('wl_1', [person(1, 'a'), company(1, 'b'), person(2)])).toBe(3);
    expect(await store.addWatchEntries('wl_1', [person(1, 'again'), person(3, 'c'), person(3, 'c2')])).toBe(
      4,
    );
    const entries = await store.listWatchEntries('wl_1', 0, 10);
    expect(entries.map(({ seq: _, ...entry }) => entry)).toEqual([
      person(1, 'again'),
      company(1, 'b'),
      person(2),
      person(3, 'c2'),
    ]);
    expect((await store.getWatchlist('key_1', 'wl_1'))!.size).toBe(4);

    const [first, second, ...rest] = entries;
    expect(first!.seq).toBeLessThan(second!.seq);
    expect(await store.listWatchEntries('wl_1', first!.seq, 2)).toEqual([second, rest[0]]);
    expect(await store.listWatchEntries('wl_1', rest.at(-1)!.seq, 2)).toEqual([]);

    expect(await store.deleteWatchEntry('wl_1', second!.seq)).toBe(true);
    expect(await store.deleteWatchEntry('wl_1', second!.seq)).toBe(false);
    expect(await store.deleteWatchEntry('wl_2', first!.seq)).toBe(false);
    expect((await store.getWatchlist('key_1', 'wl_1'))!.size).toBe(3);
    expect(await store.listWatchEntries('wl_1', 0, 10)).toEqual([first, ...rest]);
  });

  it('adds nothing to a watchlist that does not exist', async () => {
    expect(await store.addWatchEntries('wl_none', [person(1)])).toBe(0);
    expect(await store.listWatchEntries('wl_none', 0, 10)).toEqual([]);
  });

  it("answers which of a page's ids a watchlist watches, persons and companies apart", async () => {
    await store.createWatchlist({ id: 'wl_1', key_id: 'key_1', name: 'List', created_at: at });
    await store.createWatchlist({ id: 'wl_2', key_id: 'key_1', name: 'Other', created_at: at });
    await store.addWatchEntries('wl_1', [person(1), company(2)]);
    await store.addWatchEntries('wl_2', [person(2), company(1)]);
    const watched = await store.watchedIn(
      'wl_1',
      [person(1).record_id, person(2).record_id],
      [company(1).record_id, company(2).record_id],
    );
    expect(watched.persons).toEqual(new Set([person(1).record_id]));
    expect(watched.companies).toEqual(new Set([company(2).record_id]));
    const none = await store.watchedIn('wl_1', [], []);
    expect([none.persons.has(person(1).record_id), none.companies.has(company(2).record_id)]).toEqual([
      false,
      false,
    ]);
  });

  it('holds many entries, added in batches', async () => {
    await store.createWatchlist({ id: 'wl_1', key_id: 'key_1', name: 'List', created_at: at });
    for (let batch = 0; batch < 5; batch++) {
      const entries = Array.from({ length: 1000 }, (_, i) => person(batch * 1000 + i));
      await store.addWatchEntries('wl_1', entries);
    }
    expect((await store.getWatchlist('key_1', 'wl_1'))!.size).toBe(5000);
    const page = await store.listWatchEntries('wl_1', 0, 1000);
    expect(page).toHaveLength(1000);
    expect(page.at(-1)!.record_id).toBe(person(999).record_id);
  });
}
