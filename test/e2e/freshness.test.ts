// What another process commits — an import, a delete, a suppression, a key's new settings, a revocation, a
// rotation — is what the very next request to a running server sees, on every worker.

import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Server, serve } from '../cluster/serve.js';
import { PEOPLE } from '../helpers/app.js';
import { enrichOk, writeNdjson } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

/** One lookup on a fresh connection, so that consecutive lookups land on either worker. */
async function lookup(
  url: string,
  path: string,
  token: string,
): Promise<{ status: number; body: string; policy?: string }> {
  const request = get(`${url}${path}`, { agent: false, headers: { authorization: `Bearer ${token}` } });
  const [response] = (await once(request, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  response.setEncoding('utf8');
  for await (const chunk of response) body += chunk;
  return { status: response.statusCode!, body, policy: response.headers['ratelimit-policy'] as string };
}

/** The same lookup several times: each worker answers some of them, and all must agree. */
async function everyWorker(url: string, path: string, token: string) {
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await lookup(url, path, token));
  return answers;
}

const BACKENDS = ['sqlite', 'postgres'] as const;

describe.each(BACKENDS)('on %s, the next request after another process commits', (backend) => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-fresh-'));
  const db = join(dir, 'enrich.db');
  let database: TestDatabase | undefined;
  let env: Record<string, string> = {};
  let server: Server;
  let token: string;
  let keyId: string;
  const cli = (args: string[]) => enrichOk([...args, '--db', db], env);
  const ndjson = (name: string, records: object[]) => writeNdjson(dir, name, records);

  beforeAll(async () => {
    if (backend === 'postgres') {
      database = await createTestDatabase();
      env = { DATABASE_URL: database.url };
    }
    cli(['import', 'people', ndjson('people.ndjson', PEOPLE)]);
    token = cli(['keys', 'create', '--name', 'fresh', '--rate', '1000']).trim().split('\n').at(-1)!;
    keyId = JSON.parse(cli(['keys', 'list', '--json']))[0].id;
    server = await serve(['--db', db, '--workers', '2'], {
      ...env,
      ENRICH_JOURNAL_DIR: join(dir, 'journal'),
    });
  });
  afterAll(async () => {
    await server.stop();
    await database?.drop();
  });

  it('serves a record imported, and the new version of one re-imported', async () => {
    const newcomer = {
      id: 'fp000000000099',
      name: 'Ngaio Marsh',
      emails: { work: [{ value: 'ngaio@acme.co.nz' }] },
    };
    const renamed = { ...PEOPLE[2]!, name: 'Samuel Lee' };
    cli(['import', 'people', ndjson('more.ndjson', [newcomer, renamed])]);
    for (const answer of await everyWorker(server.url, '/people?work_email=NGAIO%40acme.co.nz', token)) {
      expect(answer).toMatchObject({ status: 200, body: JSON.stringify(newcomer) });
    }
    for (const answer of await everyWorker(server.url, `/people?id=${renamed.id}`, token)) {
      expect(answer).toMatchObject({ status: 200, body: JSON.stringify(renamed) });
    }
  });

  it('answers 404 for a record deleted, by id and by its identifiers', async () => {
    cli(['delete', 'people', 'fp000000000099']);
    for (const path of ['/people?id=fp000000000099', '/people?work_email=ngaio%40acme.co.nz']) {
      for (const answer of await everyWorker(server.url, path, token)) expect(answer.status).toBe(404);
    }
  });

  it('answers 404 for a person suppressed', async () => {
    cli(['suppress', 'people', '--personal-email', 'sam.lee@outlook.com']);
    for (const answer of await everyWorker(
      server.url,
      '/people?personal_email=sam.lee%40outlook.com',
      token,
    )) {
      expect(answer.status).toBe(404);
    }
  });

  it("applies a key's new scopes and rate, changed by enrich keys update, from its next request", async () => {
    cli(['keys', 'update', keyId, '--scopes', 'company:read']);
    for (const answer of await everyWorker(server.url, '/people?id=fp000000000001', token)) {
      expect(answer.status).toBe(403);
    }
    cli(['keys', 'update', keyId, '--scopes', 'people:read,company:read', '--rate', '1']);
    const answers = await everyWorker(server.url, '/people?id=fp000000000001', token);
    for (const answer of answers) expect(answer.policy).toBe('"default";q=1;w=1');
    // One request a second, with a burst of one: six requests in a row see a 429.
    expect(answers.map((a) => a.status)).toContain(429);
    cli(['keys', 'update', keyId, '--rate', '1000']);
    for (const answer of await everyWorker(server.url, '/people?id=fp000000000001', token)) {
      expect(answer).toMatchObject({ status: 200, policy: '"default";q=1000;w=1' });
    }
  });

  it('refuses a token rotated out without grace, and accepts its replacement', async () => {
    const replacement = cli(['keys', 'rotate', keyId, '--grace', '0']).trim().split('\n').at(-1)!;
    for (const answer of await everyWorker(server.url, '/people?id=fp000000000001', token)) {
      expect(answer.status).toBe(401);
    }
    for (const answer of await everyWorker(server.url, '/people?id=fp000000000001', replacement)) {
      expect(answer.status).toBe(200);
    }
    token = replacement;
  });

  it('refuses a key revoked', async () => {
    cli(['keys', 'revoke', keyId]);
    for (const answer of await everyWorker(server.url, '/people?id=fp000000000001', token)) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).detail).toMatch(/revoked/);
    }
  });
});
