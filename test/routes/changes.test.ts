// GET /v1/changes: pages of change events in commit order, filtered by type, long-polled, and refused 410 past
// the log's retention. The log here is in memory (the stores' own is tested by their contract suite).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeCursor, renderEvent } from '../../src/changes/render.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { companyUpdated, created, joined, MemoryChanges } from '../helpers/memory-changes.js';

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  let log: MemoryChanges;
  let auth: string;
  beforeAll(async () => {
    log = new MemoryChanges();
    t = await testApp(backend, { changes: log });
    auth = (await t.newKey({ scopes: ['changes:read'] })).auth;
  });
  afterAll(() => t.close());

  const get = (url: string, authorization = auth) =>
    t.app.inject({ method: 'GET', url, headers: { authorization } });
  const page = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: { id: string; type: string }[]; next: string; has_more: boolean };
  };

  describe('who may read it', () => {
    it('needs changes:read, which the default scopes do not hold', async () => {
      const lookups = await t.newKey();
      const res = await get('/v1/changes', lookups.auth);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden', required_scope: 'changes:read' });
      expect((await get('/v1/changes', 'Bearer nope')).statusCode).toBe(401);
    });

    it("is not a lookup: the reader's usage counts none of its reads", async () => {
      const reader = await t.newKey({ scopes: ['changes:read'] });
      await get('/v1/changes', reader.auth);
      const usage = await get('/v1/usage', reader.auth);
      expect(usage.json().totals.requests).toBe(0);
    });
  });

  describe('reading', () => {
    it('answers an empty log with no event and a cursor to start from', async () => {
      const empty = await testApp(backend, { changes: new MemoryChanges() });
      try {
        const key = await empty.newKey({ scopes: ['changes:read'] });
        const res = await empty.app.inject({
          method: 'GET',
          url: '/v1/changes',
          headers: { authorization: key.auth },
        });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.json()).toEqual({ data: [], next: encodeCursor(0), has_more: false });
      } finally {
        await empty.close();
      }
    });

    it('lists every event once, in commit order, page after page by `next`', async () => {
      const start = (await page('/v1/changes')).next;
      const logged = [
        ...log.append([created('fp1'), joined('fp1', 'f1'), created('fp2'), companyUpdated('f1', ['name'])]),
        ...log.append([created('fp3')]),
      ];
      const seen = [];
      let cursor = start;
      const hasMore = [];
      for (;;) {
        const p = await page(`/v1/changes?after=${cursor}&limit=2`);
        seen.push(...p.data);
        hasMore.push(p.has_more);
        cursor = p.next;
        if (!p.has_more) break;
      }
      expect(hasMore).toEqual([true, true, false]);
      expect(seen).toEqual(logged.map(renderEvent));
      expect(seen[0]!.id).toMatch(/^evt_\d{16}$/);
      expect(seen[1]).toMatchObject({
        type: 'person.job_changed',
        data: { change: 'joined', previous: null },
      });
      // Caught up: nothing more, and the same cursor again.
      expect(await page(`/v1/changes?after=${cursor}`)).toEqual({ data: [], next: cursor, has_more: false });
    });

    it('lists only the types asked for, and its `next` moves past the others', async () => {
      const start = (await page('/v1/changes')).next;
      const [, job] = log.append([created('fp4'), joined('fp4', 'f2'), created('fp5')]);
      const p = await page(`/v1/changes?after=${start}&types=person.job_changed,company.removed`);
      expect(p.data).toEqual([renderEvent(job!)]);
      expect(p.has_more).toBe(false);
      // The next read starts after fp5's creation, not after the job change.
      log.append([created('fp6')]);
      const after = await page(`/v1/changes?after=${p.next}&types=person.created`);
      expect(after.data.map((e) => e.type)).toEqual(['person.created']);
      expect(after.data[0]).toMatchObject({ data: { person_id: 'fp6' } });
    });

    it('refuses what is not a parameter it takes, naming the parameter', async () => {
      const cases: [string, string, string][] = [
        ['after=bm9wZQ', 'invalid_parameter', 'after'],
        [`after=${encodeCursor(1)}x`, 'invalid_parameter', 'after'],
        ['types=person.hired', 'invalid_parameter', 'types'],
        ['types=person.created,', 'invalid_parameter', 'types'],
        ['limit=0', 'invalid_parameter', 'limit'],
        ['limit=1001', 'invalid_parameter', 'limit'],
        ['limit=ten', 'invalid_parameter', 'limit'],
        ['wait=31', 'invalid_parameter', 'wait'],
        ['wait=-1', 'invalid_parameter', 'wait'],
        ['limit=1&limit=2', 'invalid_parameter', 'limit'],
        ['since=2026-01-01', 'unknown_parameter', 'since'],
      ];
      for (const [query, code, parameter] of cases) {
        const res = await get(`/v1/changes?${query}`);
        expect([query, res.statusCode, res.json()]).toMatchObject([query, 400, { code, parameter }]);
      }
    });
  });

  describe('of a watchlist', () => {
    it("lists only the events of the watchlist's people and companies, page after page", async () => {
      const owner = await t.newKey({ scopes: ['changes:read', 'changes:write'] });
      const id = `wl_feed${backend}`;
      await t.store.createWatchlist({
        id,
        key_id: owner.id,
        name: 'champions',
        created_at: new Date().toISOString(),
      });
      await t.store.addWatchEntries(id, [
        { kind: 'person', record_id: 'fpw1', ref: null },
        { kind: 'company', record_id: 'fw9', ref: null },
      ]);
      const read = async (url: string) => {
        const res = await get(url, owner.auth);
        expect(res.statusCode, res.body).toBe(200);
        return res.json() as { data: { id: string; type: string }[]; next: string; has_more: boolean };
      };
      const start = (await read('/v1/changes')).next;
      const logged = log.append([
        created('fpw1'), // watched person
        created('fpw2'),
        joined('fpw2', 'fw9'), // joins a watched company
        companyUpdated('fw9', ['name']), // the watched company itself
        companyUpdated('fw8', ['name']),
        joined('fpw3', 'fw8'),
        created('fpw1'),
      ]);
      const watched = [logged[0], logged[2], logged[3], logged[6]].map((e) => renderEvent(e!));
      const seen = [];
      let cursor = start;
      for (let pages = 0; pages < 10; pages++) {
        const p = await read(`/v1/changes?watchlist=${id}&after=${cursor}&limit=2`);
        seen.push(...p.data);
        cursor = p.next;
        if (!p.has_more) break;
      }
      expect(seen).toEqual(watched);
      // Types and a watchlist together: both filters hold.
      const jobs = await read(`/v1/changes?watchlist=${id}&after=${start}&types=person.job_changed`);
      expect(jobs.data).toEqual([renderEvent(logged[2]!)]);
      // The cursor past the last watched event leaves nothing to read again.
      expect((await read(`/v1/changes?watchlist=${id}&after=${cursor}`)).data).toEqual([]);
    });

    it("answers 404 for another key's watchlist, and for none, as the watchlist routes do", async () => {
      const owner = await t.newKey({ scopes: ['changes:read'] });
      const id = `wl_other${backend}`;
      await t.store.createWatchlist({
        id,
        key_id: owner.id,
        name: 'theirs',
        created_at: new Date().toISOString(),
      });
      for (const url of [`/v1/changes?watchlist=${id}`, '/v1/changes?watchlist=wl_none']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toMatchObject({ code: 'not_found' });
        expect(res.body).not.toContain('theirs');
      }
      expect((await get(`/v1/changes?watchlist=${id}`, owner.auth)).statusCode).toBe(200);
      expect((await get('/v1/changes?watchlist=')).statusCode).toBe(400);
    });
  });

  describe('retention', () => {
    it('answers 410 to a cursor older than the log keeps, naming the oldest event kept', async () => {
      const pruned = new MemoryChanges();
      const t2 = await testApp(backend, { changes: pruned });
      try {
        const key = await t2.newKey({ scopes: ['changes:read'] });
        pruned.append([created('fp1'), created('fp2')], new Date('2026-01-01T00:00:00Z'));
        const kept = pruned.append([created('fp3')]);
        await pruned.pruneChanges(new Date('2026-02-01T00:00:00Z'));
        const read = (after: number) =>
          t2.app.inject({
            method: 'GET',
            url: `/v1/changes?after=${encodeCursor(after)}`,
            headers: { authorization: key.auth },
          });
        const gone = await read(1);
        expect(gone.statusCode).toBe(410);
        expect(gone.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(gone.json()).toMatchObject({
          code: 'gone',
          status: 410,
          oldest_event: renderEvent(kept[0]!).id,
        });
        expect(gone.json().detail).toMatch(/older than the change log keeps/);
        // The cursor just before the oldest kept event loses nothing: it is still good.
        const fine = await read(2);
        expect(fine.statusCode).toBe(200);
        expect(fine.json().data).toEqual(kept.map(renderEvent));
        // Without a cursor, the read starts at the oldest event kept.
        const fresh = await t2.app.inject({
          method: 'GET',
          url: '/v1/changes',
          headers: { authorization: key.auth },
        });
        expect(fresh.json().data).toEqual(kept.map(renderEvent));
      } finally {
        await t2.close();
      }
    });
  });

  describe('waiting', () => {
    let cursor: string;
    beforeEach(async () => {
      cursor = (await page('/v1/changes')).next;
    });

    it('holds an empty page until an event arrives, then answers at once', async () => {
      const began = Date.now();
      const answer = get(`/v1/changes?after=${cursor}&wait=20`);
      setTimeout(() => log.append([created('fp7')]), 200);
      const res = await answer;
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject([{ type: 'person.created', data: { person_id: 'fp7' } }]);
      expect(Date.now() - began).toBeLessThan(5000);
      expect(log.watchers).toBe(0);
    });

    it('keeps waiting through events of other types, and answers empty when the wait is over', async () => {
      const began = Date.now();
      const answer = get(`/v1/changes?after=${cursor}&wait=1&types=person.removed`);
      setTimeout(() => log.append([created('fp8')]), 100);
      const res = await answer;
      expect(Date.now() - began).toBeGreaterThanOrEqual(950);
      expect(res.json()).toMatchObject({ data: [], has_more: false });
      // Its cursor is past fp8's creation.
      expect((await page(`/v1/changes?after=${res.json().next}`)).data).toEqual([]);
    });

    it('answers a waiting reader as soon as the server starts closing', async () => {
      const t3 = await testApp(backend, { changes: new MemoryChanges() });
      const key = await t3.newKey({ scopes: ['changes:read'] });
      const began = Date.now();
      const answer = t3.app.inject({
        method: 'GET',
        url: '/v1/changes?wait=30',
        headers: { authorization: key.auth },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const closed = t3.close();
      const res = await answer;
      await closed;
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual([]);
      expect(Date.now() - began).toBeLessThan(10_000);
    });
  });

  it('reports the events it served and their lag in /metrics', async () => {
    log.append([created('fp9')], new Date(Date.now() - 3000));
    await page('/v1/changes?limit=1000');
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const served = Number(/^enrich_changes_served_total (\d+)/m.exec(text)?.[1]);
    const lag = Number(/^enrich_changes_feed_lag_seconds ([\d.]+)/m.exec(text)?.[1]);
    expect(served).toBeGreaterThan(0);
    expect(lag).toBeGreaterThanOrEqual(3);
    expect(lag).toBeLessThan(60);
  });
});
