// A server's local index on PostgreSQL: lookups and keys answered from it without a query, every write made
// anywhere seen within a second, restarts that catch up, indexes that are rebuilt rather than served when
// they are empty, foreign, corrupt or behind the log's retention, and lookups that go on while PostgreSQL is away.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prepareLine } from '../../../src/ingest/prepare.js';
import { migratePostgres, openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';
import { type PgInstance, startPgInstance } from '../../helpers/pg-instance.js';

const person = (n: number, email: string, name = `Person ${n}`): RecordToStore => {
  const id = `fp${String(n).padStart(12, '0')}`;
  return prepareLine(
    'people',
    JSON.stringify({ id, name, emails: { work: [{ value: email }] } }),
  ) as RecordToStore;
};
const company = (n: number, domain: string): RecordToStore => {
  const id = `fc${String(n).padStart(12, '0')}`;
  return prepareLine(
    'companies',
    JSON.stringify({ id, name: `Company ${n}`, website: domain }),
  ) as RecordToStore;
};
const key = (id: string, hash: string) => ({
  id,
  name: id,
  hash,
  scopes: ['people:read' as const],
  rate: 10,
  quota: null,
  created_at: new Date().toISOString(),
  expires_at: null,
  revoked_at: null,
});

const READER = fileURLToPath(new URL('./local-reader.ts', import.meta.url));
const silent = { info: () => {}, warn: () => {} };
const dirs: string[] = [];
const localDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-local-'));
  dirs.push(dir);
  return dir;
};

async function until<T>(check: () => T | Promise<T>, withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function server(url: string, dir: string): Promise<PostgresStore> {
  const store = await openPostgresStore({ url, poolSize: 4, localDir: dir });
  store.logLocalTo(silent);
  return store;
}
const serving = (store: PostgresStore) =>
  until(() => store.localStatus()?.serving === true, 20_000, 'the local index in service');

/** What a lookup by work e-mail answers, as bodies; throws when it was not answered without a promise. */
function fromIndex(store: PostgresStore, email: string): string[] {
  const answer = store.findRecords('people', 'work_email', email, 10);
  if (answer instanceof Promise) throw new Error('answered by a query, not from the local index');
  return answer.map((record) => String(record.body));
}
const bodies = async (store: PostgresStore, email: string) =>
  (await store.findRecords('people', 'work_email', email, 10)).map((record) => String(record.body));

describe('a PostgreSQL server with a local index', () => {
  let database: TestDatabase;
  let writer: PostgresStore;
  const open: PostgresStore[] = [];
  const track = (store: PostgresStore) => {
    open.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  beforeEach(async () => {
    await database.truncate();
    // The CLI's store, or another machine's server without a local index: writes only.
    writer = track(await openPostgresStore({ url: database.url, poolSize: 2 }));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('answers lookups and keys from the index, without a query', async () => {
    await writer.upsert('people', [person(1, 'ada@acme.com.au')]);
    await writer.upsert('companies', [company(1, 'acme.com.au')]);
    await writer.createKey(key('k1', 'h1'));
    const store = track(await server(database.url, localDir()));
    await serving(store);
    expect(fromIndex(store, 'ada@acme.com.au')).toEqual([person(1, 'ada@acme.com.au').body]);
    const byDomain = store.findRecords('companies', 'domain', 'acme.com.au', 10);
    expect(byDomain).not.toBeInstanceOf(Promise);
    expect((byDomain as Array<{ id: string }>).map((r) => r.id)).toEqual(['fc000000000001']);
    const found = store.findKeyByHash('h1');
    expect(found).not.toBeInstanceOf(Promise);
    expect(found).toMatchObject({ id: 'k1', revoked_at: null });
  });

  it('serves what another process writes within a second: import, update, delete, suppression, keys', async () => {
    const store = track(await server(database.url, localDir()));
    await serving(store);
    const latency: number[] = [];
    await writer.upsert('people', [person(1, 'ada@acme.com.au'), person(2, 'bo@acme.com.au')]);
    latency.push(await until(() => fromIndex(store, 'ada@acme.com.au').length === 1, 1_000, 'an import'));
    await writer.upsert('people', [person(1, 'ada@acme.com.au', 'Ada Lovelace')]);
    latency.push(
      await until(() => fromIndex(store, 'ada@acme.com.au')[0]?.includes('Lovelace'), 1_000, 'an update'),
    );
    await writer.delete('people', ['fp000000000002']);
    latency.push(await until(() => fromIndex(store, 'bo@acme.com.au').length === 0, 1_000, 'a delete'));
    await writer.suppress('people', ['fp000000000001'], ['a-hash']);
    latency.push(await until(() => fromIndex(store, 'ada@acme.com.au').length === 0, 1_000, 'a suppression'));

    await writer.createKey(key('k1', 'h1'));
    latency.push(await until(() => store.findKeyByHash('h1') !== undefined, 1_000, 'a new key'));
    await writer.revokeKey('k1', new Date());
    latency.push(
      await until(
        () => (store.findKeyByHash('h1') as { revoked_at: string | null }).revoked_at !== null,
        1_000,
        'a revocation',
      ),
    );
    await writer.createKey(key('k2', 'h2'));
    await writer.rotateKey('k2', 'h2-new', new Date(Date.now() + 60_000));
    latency.push(
      await until(() => (store.findKeyByHash('h2-new') as { id?: string })?.id === 'k2', 1_000, 'a rotation'),
    );
    expect(store.findKeyByHash('h2')).toMatchObject({ id: 'k2', hash: 'h2-new', previous_hash: 'h2' });
    expect(Math.max(...latency)).toBeLessThan(1_000);
  });

  it("shows a server's own writes to its next lookup", async () => {
    const store = track(await server(database.url, localDir()));
    await serving(store);
    await store.upsert('people', [person(1, 'ada@acme.com.au')]);
    expect(fromIndex(store, 'ada@acme.com.au')).toHaveLength(1);
    await store.delete('people', ['fp000000000001']);
    expect(fromIndex(store, 'ada@acme.com.au')).toEqual([]);
    await store.createKey(key('k1', 'h1'));
    await store.revokeKey('k1', new Date());
    expect(store.findKeyByHash('h1')).toMatchObject({ id: 'k1', revoked_at: expect.any(String) });
  });

  it('catches up after a restart that missed writes, answering correctly meanwhile', async () => {
    const dir = localDir();
    const first = await server(database.url, dir);
    await writer.upsert('people', [person(1, 'ada@acme.com.au')]);
    await serving(first);
    await until(() => fromIndex(first, 'ada@acme.com.au').length === 1, 1_000, 'the first import');
    await first.close();
    await writer.upsert('people', [
      person(1, 'ada@acme.com.au', 'Ada Lovelace'),
      person(2, 'bo@acme.com.au'),
    ]);
    const again = track(await server(database.url, dir));
    // Before it has caught up, lookups read PostgreSQL: never the missed state.
    expect(await bodies(again, 'bo@acme.com.au')).toHaveLength(1);
    expect((await bodies(again, 'ada@acme.com.au'))[0]).toContain('Lovelace');
    await serving(again);
    expect(fromIndex(again, 'bo@acme.com.au')).toHaveLength(1);
    expect(fromIndex(again, 'ada@acme.com.au')[0]).toContain('Lovelace');
  });

  it('rebuilds an index whose cursor fell out of the log, and one of another database', async () => {
    const dir = localDir();
    const first = await server(database.url, dir);
    await serving(first);
    await first.close();
    await writer.upsert('people', [person(1, 'ada@acme.com.au')]);
    expect(await writer.pruneChanges(new Date(Date.now() + 60_000))).toBeGreaterThan(0);
    const again = track(await server(database.url, dir));
    await serving(again);
    expect(fromIndex(again, 'ada@acme.com.au')).toHaveLength(1);
    await again.close();
    open.splice(open.indexOf(again), 1);

    const other = await createTestDatabase();
    try {
      const foreign = await server(other.url, dir);
      try {
        await serving(foreign);
        expect(fromIndex(foreign, 'ada@acme.com.au')).toEqual([]);
      } finally {
        await foreign.close();
      }
    } finally {
      await other.drop();
    }
  });

  it('rebuilds a corrupt index rather than serving it', async () => {
    const dir = localDir();
    await writer.upsert('people', [person(1, 'ada@acme.com.au')]);
    const first = await server(database.url, dir);
    await serving(first);
    await first.close();
    for (const file of readdirSync(dir)) writeFileSync(join(dir, file), Buffer.alloc(65_536, 0x5a));
    const again = track(await server(database.url, dir));
    await serving(again);
    expect(fromIndex(again, 'ada@acme.com.au')).toHaveLength(1);
  });

  it('builds a fresh index from a snapshot while answering from PostgreSQL, then switches to it', async () => {
    await writer.upsert(
      'people',
      Array.from({ length: 3_000 }, (_, n) => person(n + 1, `p${n + 1}@acme.com.au`)),
    );
    const store = track(await server(database.url, localDir()));
    expect(store.localStatus()?.serving).toBe(false);
    expect(await bodies(store, 'p2999@acme.com.au')).toHaveLength(1);
    await serving(store);
    expect(fromIndex(store, 'p2999@acme.com.au')).toHaveLength(1);
    expect(fromIndex(store, 'p1@acme.com.au')).toHaveLength(1);
  });

  it('lets one process of a machine follow, the others reading what it writes', async () => {
    const dir = localDir();
    const leader = track(await server(database.url, dir));
    await serving(leader);
    const other = spawn(process.execPath, ['--import', 'tsx', READER, database.url, dir, 'ada@acme.com.au']);
    const lines = createInterface({ input: other.stdout })[Symbol.asyncIterator]();
    expect(JSON.parse((await lines.next()).value)).toEqual({ phase: 'standby' });
    await writer.upsert('people', [person(1, 'ada@acme.com.au')]);
    expect(JSON.parse((await lines.next()).value)).toEqual({ found: 'fp000000000001' });
    expect(leader.localStatus()?.phase).toBe('following');
  });
});

describe('a PostgreSQL server with a local index while PostgreSQL is away', () => {
  let instance: PgInstance;
  let store: PostgresStore;
  const warnings: string[] = [];

  beforeAll(async () => {
    instance = await startPgInstance();
    await migratePostgres(instance.url);
    store = await openPostgresStore({ url: instance.url, poolSize: 4, localDir: localDir() });
    store.logLocalTo({ info: () => {}, warn: (message) => warnings.push(message) });
    await store.upsert('people', [person(1, 'ada@acme.com.au')]);
    await store.createKey(key('k1', 'h1'));
    await serving(store);
    await until(() => !(store.findKeyByHash('h1') instanceof Promise), 5_000, 'the key in the index');
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await instance?.destroy();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps answering lookups by known keys, fails writes, says why, and follows again on its return', async () => {
    await instance.stop('immediate');
    await until(() => store.localStatus()?.problem !== undefined, 5_000, 'the follower noticing');
    expect(store.localStatus()).toMatchObject({ serving: true });
    expect(warnings.join('\n')).toMatch(/cannot follow PostgreSQL/);
    expect(fromIndex(store, 'ada@acme.com.au')).toHaveLength(1);
    expect(store.findKeyByHash('h1')).toMatchObject({ id: 'k1' });
    await expect(store.upsert('people', [person(2, 'bo@acme.com.au')])).rejects.toThrow();
    await instance.start();
    await until(() => store.localStatus()?.problem === undefined, 10_000, 'the follower recovering');
    await store.upsert('people', [person(2, 'bo@acme.com.au')]);
    expect(fromIndex(store, 'bo@acme.com.au')).toHaveLength(1);
  }, 60_000);
});
