// No password of DATABASE_URL, DATABASE_READ_URL or REDIS_URL in any output: start-up and config
// errors, every command's errors, logs, /readyz — against the real binary, PostgreSQL and Redis.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../cluster/redis.js';
import { dataSet, localIndexServing, PERSON_ID, type Server, serve } from '../cluster/serve.js';
import { enrich, enrichAsync } from '../helpers/cli.js';
import { type PgInstance, startPgInstance } from '../helpers/pg-instance.js';

const PASSWORD = 's3cretpw';
const dir = mkdtempSync(join(tmpdir(), 'enrich-secrets-'));
const people = join(dir, 'people.ndjson');
writeFileSync(people, '{"id":"fp000000000001","name":"Jane Citizen"}\n');
const list = join(dir, 'list.csv');
writeFileSync(list, 'email\njane@acme.com.au\n');

/** Every command that opens the store, with arguments that would otherwise be good. */
const COMMANDS: string[][] = [
  ['serve', '--port', '0', '--workers', '1'],
  ['migrate'],
  ['import', 'people', people],
  ['export', 'people'],
  ['delete', 'people', 'fp000000000001'],
  ['match', 'people', list],
  ['keys', 'create', '--name', 'x'],
  ['keys', 'list'],
  ['keys', 'show', 'key_x'],
  ['keys', 'update', 'key_x', '--rate', '5'],
  ['keys', 'rotate', 'key_x'],
  ['keys', 'revoke', 'key_x'],
  ['usage'],
  ['audit', '--key', 'key_x'],
  ['suppress', 'people', '--id', 'fp000000000001'],
  ['unsuppress', 'people', '--id', 'fp000000000001'],
];

const expectNoPassword = (...outputs: string[]) => {
  for (const output of outputs) expect(output).not.toContain(PASSWORD);
};

describe('a connection URL that is not valid', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args]))(
    'stops `enrich %s` with the setting named and its password masked',
    (_name, args) => {
      const run = enrich(args as string[], { DATABASE_URL: `mysql://user:${PASSWORD}@db/x` });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('databaseUrl: ');
      expect(run.stderr).toContain('(got "mysql://user:***@db/x")');
      expectNoPassword(run.stdout, run.stderr);
    },
  );

  it.each([
    ['DATABASE_READ_URL', `postgres://reader:${PASSWORD}@replica:99999/x`, 'databaseReadUrl'],
    ['REDIS_URL', `http://:${PASSWORD}@cache:6379`, 'redisUrl'],
  ])('in %s stops serve and the other commands alike', (variable, url, setting) => {
    for (const args of [COMMANDS[0]!, ['keys', 'list']]) {
      const run = enrich(args, { [variable]: url });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${setting}: `);
      expectNoPassword(run.stdout, run.stderr);
    }
  });
});

describe('a PostgreSQL that refuses the connection', () => {
  const env = { DATABASE_URL: `postgres://app:${PASSWORD}@127.0.0.1:1/enrich` };

  it.each([['serve', '--port', '0', '--workers', '1'], ['keys', 'list'], ['migrate'], ['export', 'people']])(
    'fails `enrich %s` saying so, without the password',
    async (...args) => {
      const run = await enrichAsync(args, env);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/ECONNREFUSED|unavailable/);
      expectNoPassword(run.stdout, run.stderr);
    },
  );
});

describe('a Redis that refuses the password, or the connection', () => {
  let db: string;
  let token: string;
  beforeAll(() => {
    ({ db, token } = dataSet(100));
  });

  it.each([
    ['a wrong password', `redis://enrich:${PASSWORD}@${new URL(REDIS_URL).host}`],
    ['no server', `redis://:${PASSWORD}@127.0.0.1:1`],
  ])('is logged and served through with %s, never printing it', async (_what, redisUrl) => {
    const server = await serve(['--db', db, '--workers', '1'], { REDIS_URL: redisUrl, LOG_LEVEL: 'info' });
    try {
      const response = await fetch(`${server.url}/people?id=${PERSON_ID}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200); // ENRICH_REDIS_FAILURE=open: admitted
      expect(server.stderr()).toContain('Redis connection failed');
    } finally {
      await server.stop();
    }
    expectNoPassword(server.stdout(), server.stderr());
  });
});

describe.each([
  ['without a local index', false],
  ['with a local index', true],
])('a PostgreSQL that goes away under a running server %s', (_name, local) => {
  let pg: PgInstance;
  let server: Server;
  let env: Record<string, string>;
  beforeAll(async () => {
    pg = await startPgInstance();
    // Trust authentication takes any password: this one only has to be in the URL.
    const url = new URL(pg.url);
    url.password = PASSWORD;
    env = {
      DATABASE_URL: url.href,
      ENRICH_JOURNAL_DIR: join(dir, `journal-${local}`),
      ENRICH_LOCAL_INDEX: String(local),
      ENRICH_LOCAL_DIR: join(dir, 'local'),
      LOG_LEVEL: 'info',
    };
    expect((await enrichAsync(['migrate'], env)).status).toBe(0);
    server = await serve(['--workers', '1'], env);
    if (local) await localIndexServing(server);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await pg?.destroy();
  });

  it(`answers /readyz ${local ? '200 degraded' : '503'}, and logs why, without the password`, async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await pg.stop('immediate');
    const response = await fetch(`${server.url}/readyz`);
    const body = await response.text();
    if (local) {
      // Lookups by known keys answer from the local index: a balancer keeps sending them.
      expect(response.status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({
        status: 'degraded',
        reasons: [expect.stringMatching(/^postgres: /)],
      });
    } else {
      expect(response.status).toBe(503);
      expect(JSON.parse(body)).toMatchObject({ code: 'unavailable' });
    }
    const lookup = await fetch(`${server.url}/people?id=${PERSON_ID}`, {
      headers: { authorization: 'Bearer enr_000000000000000000000000000000000000' },
    });
    expect([401, 503]).toContain(lookup.status);
    const said = local ? 'local index: cannot follow PostgreSQL' : 'readiness check failed';
    for (let i = 0; i < 50 && !`${server.stdout()}${server.stderr()}`.includes(said); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(`${server.stdout()}${server.stderr()}`).toContain(said);
    expectNoPassword(body, await lookup.text(), server.stdout(), server.stderr());
    expect(server.stderr()).toMatch(/listening on \S+ over PostgreSQL 127\.0\.0\.1:\d+\/postgres/);
  });

  it('fails a command saying the store is unavailable, without the password', async () => {
    const run = await enrichAsync(['keys', 'list'], env);
    expect(run.status).toBe(1);
    expectNoPassword(run.stdout, run.stderr);
  });
});
