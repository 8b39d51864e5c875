// A costly search is bounded and kept off the event loop that answers lookups: on a store of generated people,
// ten free-text searches at once leave /healthz answering at once; single letters of `q` are left out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { generatePeople } from '../../src/generate/index.js';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import type { RecordToStore } from '../../src/store/records.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';

/** Enough people that one free-text search matching most of them takes the event loop for a while. */
const PEOPLE = 60_000;

describe('costly searches on a store of generated people', () => {
  let dir: string;
  let store: SqliteStore;
  let app: FastifyInstance;
  let origin: string;
  let auth: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-search-cost-'));
    store = openSqliteStore(join(dir, 'enrich.db'), { searchThread: true });
    let batch: RecordToStore[] = [];
    for (const person of generatePeople({ companies: 500, people: PEOPLE, seed: 3, idStart: 1_000 })) {
      const line = prepareLine('people', JSON.stringify(person));
      if (line instanceof Invalid) throw new Error(line.message);
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

  it('leaves /healthz answering within 50 ms while ten run at once', async () => {
    let running = true;
    const searches = Promise.all(
      ['ma', 'se', 'an', 'er', 'co', 'in', 'ma se', 'an er', 'co in', 'st re'].map(async (q) => {
        const res = await search({ q, size: 100 });
        return [res.status, (await res.json()) as { total: { relation: string } }] as const;
      }),
    ).finally(() => {
      running = false;
    });
    const waits: number[] = [];
    while (running) {
      const started = performance.now();
      const health = await fetch(`${origin}/healthz`);
      await health.arrayBuffer();
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answered = await searches;
    expect(answered.every(([status]) => status === 200)).toBe(true);
    expect(waits.length).toBeGreaterThan(0);
    // Half of them (the median) within 50 ms: the suite's other files share the machine's two cores, and
    // their pauses can delay a few /healthz whatever the searches do; with the searches on the event loop,
    // /healthz waits behind them (173 ms at the worst when measured alone).
    const sorted = [...waits].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThan(50);
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
});
