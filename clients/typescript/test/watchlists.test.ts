// The client's watchlist methods against a real server: create, add by any identifier, page, delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from '../../../test/helpers/app.js';
import { Enrich } from '../src/index.js';

let t: TestApp & { url: string };
let enrich: Enrich;
beforeAll(async () => {
  t = await listeningApp();
  const key = await t.newKey({ scopes: ['changes:read', 'changes:write'] });
  enrich = new Enrich({ baseUrl: t.url, token: key.token });
});
afterAll(() => t.close());

describe('watchlists', () => {
  it('creates one, adds entries in chunks, pages through them and deletes them', async () => {
    const made = await enrich.createWatchlist('Accounts');
    expect(made).toEqual({ id: expect.stringMatching(/^wl_/), name: 'Accounts', size: 0 });
    const added = await enrich.addWatchlistEntries(
      made.id,
      [
        { person: { work_email: 'jane.citizen@acme.com.au' }, ref: 'crm-1' },
        { company: { fqdn: 'acme.com.au' } },
        { person: { work_email: 'nobody@nowhere.example' }, ref: 'crm-2' },
      ],
      { chunkSize: 2 },
    );
    expect(added.results.map((r) => r.status)).toEqual(['watching', 'watching', 'not_found']);
    expect(added.results[0]).toEqual({ ref: 'crm-1', status: 'watching', person_id: 'fp000000000001' });
    expect(added.size).toBe(2);
    expect(await enrich.watchlist(made.id)).toEqual({ ...made, size: 2 });
    expect((await enrich.watchlists()).map((w) => w.id)).toContain(made.id);

    const entries = [];
    for await (const entry of enrich.watchlistEntriesAll(made.id)) entries.push(entry);
    expect(entries.map((e) => e.person_id ?? e.company_id)).toEqual(['fp000000000001', 'f000000000001']);
    expect((await enrich.watchlistEntries(made.id, { limit: 1 })).has_more).toBe(true);

    await enrich.deleteWatchlistEntry(made.id, entries[0]!.id);
    expect((await enrich.watchlist(made.id))?.size).toBe(1);
    await enrich.deleteWatchlist(made.id);
    expect(await enrich.watchlist(made.id)).toBeNull();
  });
});
