// Three `enrich serve` processes on one PostgreSQL and one Redis, each with its own port and local index:
// every write made through the CLI (another process, as on another machine) is served by all three within a
// second; a server restarted after missing writes catches up; a server with an empty directory answers at
// once and switches to its index; PostgreSQL stopped for 30 s under load keeps lookups at 200 and loses no
// accounting; and Redis stopped and started again leaves each server limiting keys to its share meanwhile.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { type OwnRedis, ownRedis } from '../cluster/own-redis.js';
import { localIndexServing, type Server, serve } from '../cluster/serve.js';
import { PEOPLE } from '../helpers/app.js';
import { enrich, enrichOk, writeNdjson } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { type PgInstance, startPgInstance } from '../helpers/pg-instance.js';

const person = (n: number, email: string, name = `Person ${n}`) => ({
  id: `fpscale${String(n).padStart(7, '0')}`,
  name,
  emails: { work: [{ value: email }] },
});

async function status(url: string, path: string, token: string): Promise<number> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Milliseconds until every server answers `path` with `expected`; fails past `withinMs`. */
async function seenByAll(servers: Server[], path: string, token: string, expected: number, withinMs = 1_000) {
  const started = Date.now();
  await Promise.all(
    servers.map(async (server) => {
      for (;;) {
        if ((await status(server.url, path, token)) === expected) return;
        if (Date.now() - started > withinMs)
          throw new Error(`${server.url}${path} did not answer ${expected} within ${withinMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  return Date.now() - started;
}

describe('three servers on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  const servers: Server[] = [];
  let token: string;
  const cli = (args: string[]) => enrichOk(args, env);
  const ndjson = (name: string, records: object[]) => writeNdjson(dir, name, records);
  const start = async (n: number) =>
    serve(['--workers', '1'], {
      ...env,
      ENRICH_LOCAL_DIR: join(dir, `local-${n}`),
      ENRICH_JOURNAL_DIR: join(dir, `journal-${n}`),
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'enrich-scaleout-'));
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      ENRICH_REDIS_PREFIX: `enrich-scaleout-${process.pid}:`,
    };
    cli(['import', 'people', ndjson('people.ndjson', PEOPLE)]);
    token = cli(['keys', 'create', '--name', 'scale', '--rate', '100000']).trim().split('\n').at(-1)!;
    for (const n of [1, 2, 3]) servers.push(await start(n));
    await Promise.all(servers.map((server) => localIndexServing(server)));
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an import, a delete, a suppression, a revocation and a rotation made elsewhere within 1 s', async () => {
    const latencies: number[] = [];
    cli(['import', 'people', ndjson('one.ndjson', [person(1, 'ada@scale.example')])]);
    latencies.push(await seenByAll(servers, '/people?work_email=ada%40scale.example', token, 200));
    cli(['import', 'people', ndjson('two.ndjson', [person(2, 'bo@scale.example')])]);
    latencies.push(await seenByAll(servers, '/people?work_email=bo%40scale.example', token, 200));
    cli(['delete', 'people', person(1, '').id]);
    latencies.push(await seenByAll(servers, '/people?work_email=ada%40scale.example', token, 404));
    cli(['suppress', 'people', '--work-email', 'bo@scale.example']);
    latencies.push(await seenByAll(servers, '/people?work_email=bo%40scale.example', token, 404));

    const other = cli(['keys', 'create', '--name', 'other']).trim().split('\n').at(-1)!;
    latencies.push(await seenByAll(servers, `/people?id=${PEOPLE[0]!.id}`, other, 200));
    const keys = JSON.parse(cli(['keys', 'list', '--json'])) as Array<{ id: string; name: string }>;
    const otherId = keys.find((k) => k.name === 'other')!.id;
    cli(['keys', 'revoke', otherId]);
    latencies.push(await seenByAll(servers, `/people?id=${PEOPLE[0]!.id}`, other, 401));

    const scaleId = keys.find((k) => k.name === 'scale')!.id;
    const rotated = cli(['keys', 'rotate', scaleId, '--grace', '0']).trim().split('\n').at(-1)!;
    latencies.push(await seenByAll(servers, `/people?id=${PEOPLE[0]!.id}`, rotated, 200));
    latencies.push(await seenByAll(servers, `/people?id=${PEOPLE[0]!.id}`, token, 401));
    token = rotated;
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  });

  it('catches a restarted server up with what it missed, and starts a server on an empty directory at once', async () => {
    await servers[2]!.stop();
    cli(['import', 'people', ndjson('missed.ndjson', [person(3, 'cy@scale.example')])]);
    servers[2] = await start(3);
    // Answers correctly from its first request: from PostgreSQL until its index has caught up.
    expect(await status(servers[2]!.url, '/people?work_email=cy%40scale.example', token)).toBe(200);
    await localIndexServing(servers[2]!);
    expect(await status(servers[2]!.url, '/people?work_email=cy%40scale.example', token)).toBe(200);

    const fresh = await start(4);
    try {
      expect(await status(fresh.url, '/people?work_email=cy%40scale.example', token)).toBe(200);
      await localIndexServing(fresh);
      expect(await status(fresh.url, '/people?work_email=cy%40scale.example', token)).toBe(200);
    } finally {
      await fresh.stop();
    }
  });
});

describe('a server on a PostgreSQL that stops for 30 s under load', () => {
  let instance: PgInstance;
  let dir: string;

  beforeAll(async () => {
    instance = await startPgInstance();
    dir = mkdtempSync(join(tmpdir(), 'enrich-pgdown-'));
  }, 60_000);
  afterAll(async () => {
    await instance?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps answering lookups 200 from its local index, fails writes, and loses no accounting', async () => {
    const env = { DATABASE_URL: instance.url };
    const cli = (args: string[]) => enrich(args, env);
    expect(cli(['migrate']).status).toBe(0);
    const people = join(dir, 'people.ndjson');
    writeFileSync(people, `${PEOPLE.map((p) => JSON.stringify(p)).join('\n')}\n`);
    expect(cli(['import', 'people', people]).status).toBe(0);
    const token = cli(['keys', 'create', '--name', 'steady', '--rate', '100000', '--quota', '1000000'])
      .stdout.trim()
      .split('\n')
      .at(-1)!;
    const keyId = JSON.parse(cli(['keys', 'list', '--json']).stdout)[0].id as string;
    const server = await serve(['--workers', '1'], {
      ...env,
      ENRICH_LOCAL_DIR: join(dir, 'local'),
      ENRICH_JOURNAL_DIR: join(dir, 'journal'),
    });
    try {
      await localIndexServing(server);
      let ok = 0;
      const other: number[] = [];
      let stop = false;
      const load = (async () => {
        for (let i = 0; !stop; i++) {
          const code = await status(server.url, `/people?id=${PEOPLE[i % PEOPLE.length]!.id}`, token);
          if (code === 200) ok++;
          else other.push(code);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await instance.stop('immediate');
      const downAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const ready = await (await fetch(`${server.url}/readyz`)).json();
      expect(ready).toMatchObject({
        status: 'degraded',
        reasons: [expect.stringMatching(/^postgres: unreachable/)],
      });
      expect(cli(['keys', 'create', '--name', 'refused']).status).not.toBe(0);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - downAt))));
      await instance.start();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      stop = true;
      await load;
      expect(other).toEqual([]);
      expect(ok).toBeGreaterThan(1_000);
      expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready' });
      expect(await server.stop()).toBe(0);
      const store = await openPostgresStore({ url: instance.url });
      try {
        const audited = await store.audit({ keyId });
        expect(audited.filter((entry) => entry.status === 200).length).toBeGreaterThanOrEqual(ok);
        const period = new Date().toISOString().slice(0, 7);
        expect(await store.quotaUsed(keyId, period)).toBeGreaterThanOrEqual(ok);
      } finally {
        await store.close();
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('three servers when Redis stops and starts again', () => {
  let database: TestDatabase;
  let redis: OwnRedis;
  let dir: string;
  const servers: Server[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await ownRedis();
    dir = mkdtempSync(join(tmpdir(), 'enrich-redisdown-'));
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await redis?.kill();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('limits each server to its share while Redis is away, says so, and converges when it is back', async () => {
    const env = { DATABASE_URL: database.url, REDIS_URL: redis.url };
    enrichOk(['import', 'people', writeNdjson(dir, 'people.ndjson', PEOPLE)], env);
    const token = enrichOk(['keys', 'create', '--name', 'shared', '--rate', '30'], env)
      .trim()
      .split('\n')
      .at(-1)!;
    for (const n of [1, 2, 3]) {
      servers.push(
        await serve(['--workers', '1'], {
          ...env,
          ENRICH_LOCAL_DIR: join(dir, `local-${n}`),
          ENRICH_JOURNAL_DIR: join(dir, `journal-${n}`),
        }),
      );
    }
    await Promise.all(servers.map((server) => localIndexServing(server)));
    const path = `/people?id=${PEOPLE[0]!.id}`;
    expect(await status(servers[0]!.url, path, token)).toBe(200);
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    for (const server of servers) {
      expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({
        status: 'degraded',
        reasons: [expect.stringMatching(/^redis: unreachable/)],
      });
    }
    // Each server admits its third of the rate (10/s, a burst of as much), and refuses the rest with 429.
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) codes.push(await status(servers[1]!.url, path, token));
    const admitted = codes.filter((code) => code === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(20);
    expect(codes.filter((code) => code !== 200 && code !== 429)).toEqual([]);
    await redis.start();
    const started = Date.now();
    for (const server of servers) {
      for (;;) {
        const ready = await (await fetch(`${server.url}/readyz`)).json();
        if (ready.status === 'ready') break;
        if (Date.now() - started > 15_000) throw new Error(`${server.url} still ${JSON.stringify(ready)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await status(servers[2]!.url, path, token)).toBe(200);
  }, 90_000);
});
