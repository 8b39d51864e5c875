import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENRICH, enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-cli-'));
const db = join(dir, 'enrich.db');
const data = join(dir, 'data');

describe('the enrich command', () => {
  beforeAll(() => {
    const generated = enrich([
      'generate',
      '--companies',
      '50',
      '--people',
      '200',
      '--seed',
      '7',
      '--out',
      data,
    ]);
    expect(generated.status).toBe(0);
  });

  it('generates the same files for the same seed', () => {
    const again = join(dir, 'again');
    expect(
      enrich(['generate', '--companies', '50', '--people', '200', '--seed', '7', '--out', again]).status,
    ).toBe(0);
    expect(readFileSync(join(again, 'people.ndjson'))).toEqual(readFileSync(join(data, 'people.ndjson')));
    expect(readFileSync(join(data, 'people.ndjson'), 'utf8').trim().split('\n')).toHaveLength(200);
  });

  it('imports files and prints one summary line per file when not on a TTY', () => {
    const companies = enrich(['import', 'companies', join(data, 'companies.ndjson'), '--db', db]);
    expect(companies.status).toBe(0);
    expect(companies.stdout).toMatch(
      /50 companies imported \(50 inserted, 0 updated, 0 unchanged\), 0 rejected of 50 lines/,
    );
    const people = enrich(['import', 'people', join(data, 'people.ndjson'), '--db', db]);
    expect(people.stdout).toMatch(/200 people imported/);
  });

  it('reports rejected lines with line number and JSON path, keeps the good ones and exits 1', () => {
    const file = join(dir, 'mixed.ndjson');
    writeFileSync(
      file,
      [
        '{"id":"fp900000000001","name":"Good One"}',
        '{"id":"fp900000000002","emails":{"work":[{"value":42}]}}',
        'not json',
        '{"id":"fp900000000003","nickname":"unknown field"}',
        '{"id":"fp900000000004","name":"Good Two"}',
      ].join('\n'),
    );
    const run = enrich(['import', 'people', file, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:2: $.emails.work[0].value:`);
    expect(run.stderr).toContain(`${file}:3: $:`);
    expect(run.stderr).toContain(`${file}:4: $.nickname:`);
    expect(run.stdout).toMatch(
      /2 people imported \(2 inserted, 0 updated, 0 unchanged\), 3 rejected of 5 lines/,
    );
  });

  it('exports NDJSON that imports again unchanged', () => {
    const out = join(dir, 'export.ndjson');
    expect(enrich(['export', 'companies', '--out', out, '--db', db]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(data, 'companies.ndjson'), 'utf8'));
  });

  it('deletes records by id, and says when an id was not there', () => {
    const run = enrich(['delete', 'people', 'fp900000000001', 'fp900000000009', '--db', db]);
    expect(run.stdout).toMatch(/1 of 2 people deleted/);
    expect(run.status).toBe(1);
  });

  it('creates keys, prints the token last, lists them without tokens and revokes them', () => {
    const created = enrich([
      'keys',
      'create',
      '--name',
      'crm sync',
      '--scopes',
      'people:read',
      '--rate',
      '5',
      '--db',
      db,
    ]);
    expect(created.status).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^enr_[0-9A-Za-z]{36}$/);
    const listed = JSON.parse(enrich(['keys', 'list', '--json', '--db', db]).stdout);
    const key = listed.find((k: { name: string }) => k.name === 'crm sync');
    expect(Object.keys(key).sort()).toEqual(
      [
        'created_at',
        'expires_at',
        'id',
        'name',
        'quota',
        'rate',
        'revoked_at',
        'scopes',
        'search_quota',
      ].sort(),
    );
    expect(key).toMatchObject({ scopes: ['people:read'], rate: 5, quota: null, revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(enrich(['keys', 'revoke', key.id, '--db', db]).status).toBe(0);
    expect(JSON.parse(enrich(['keys', 'list', '--json', '--db', db]).stdout)[0].revoked_at).not.toBeNull();
  });

  it('rotates a key: the same id, a new token printed last, the old one kept for the grace period', () => {
    const created = enrich(['keys', 'create', '--name', 'rotating', '--quota', '10', '--db', db]);
    const id = /Created key (key_\w+)/.exec(created.stdout)![1]!;
    const rotated = enrich(['keys', 'rotate', id, '--grace', '7d', '--db', db]);
    expect(rotated.status).toBe(0);
    const token = rotated.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^enr_[0-9A-Za-z]{36}$/);
    expect(token).not.toBe(created.stdout.trim().split('\n').at(-1));
    const shown = JSON.parse(enrich(['keys', 'show', id, '--json', '--db', db]).stdout);
    expect(shown).toMatchObject({ id, name: 'rotating', quota: 10, state: 'active', quota_remaining: 10 });
    const graceDays = (Date.parse(shown.previous_token_expires_at) - Date.now()) / 86_400_000;
    expect(graceDays).toBeGreaterThan(6.9);
    expect(shown.usage.totals).toEqual({ requests: 0, matched: 0, not_found: 0, ambiguous: 0, rejected: 0 });
    expect(JSON.stringify(shown)).not.toContain(token);
    expect(enrich(['keys', 'show', id, '--db', db]).stdout).toMatch(/previous token\s+works until/);
    expect(enrich(['keys', 'rotate', id, '--grace', 'soon', '--db', db]).stderr).toMatch(/30m, 24h or 7d/);
    expect(enrich(['keys', 'show', 'key_missing', '--db', db]).stderr).toMatch(/no key key_missing/);
  });

  it('exports one person for an access request, and says when an id is not there', () => {
    const line = readFileSync(join(data, 'people.ndjson'), 'utf8').split('\n')[3]!;
    const id = JSON.parse(line).id;
    const one = enrich(['export', 'people', '--id', id, '--db', db]);
    expect(one.status).toBe(0);
    expect(one.stdout).toBe(`${line}\n`);
    const missing = enrich(['export', 'people', '--id', id, '--id', 'fp999999999999', '--db', db]);
    expect(missing.stdout).toBe(`${line}\n`);
    expect(missing.status).toBe(1);
  });

  it('suppresses a person by an identifier: deleted, skipped by a re-import, restored by unsuppress', () => {
    const people = join(data, 'people.ndjson');
    const person = JSON.parse(readFileSync(people, 'utf8').split('\n')[7]!);
    const email = ` ${person.emails.work[0].value.toUpperCase()} `;
    const suppressed = enrich(['suppress', 'people', '--work-email', email, '--db', db]);
    expect(suppressed.status).toBe(0);
    expect(suppressed.stdout).toMatch(
      new RegExp(`Suppressed people by work_email: 1 deleted \\(${person.id}\\)`),
    );
    expect(enrich(['export', 'people', '--id', person.id, '--db', db]).status).toBe(1);
    const reimport = enrich(['import', 'people', people, '--db', db]);
    expect(reimport.stdout).toMatch(
      /199 people imported \(0 inserted, 0 updated, 199 unchanged\), 0 rejected, 1 suppressed of 200 lines/,
    );
    expect(enrich(['export', 'people', '--id', person.id, '--db', db]).status).toBe(1);

    const lifted = enrich(['unsuppress', 'people', '--id', person.id, '--db', db]);
    expect(lifted.stdout).toMatch(/Unsuppressed people by id: \d+ identifier hash\(es\) removed/);
    expect(enrich(['import', 'people', people, '--db', db]).stdout).toMatch(
      /200 people imported \(1 inserted, 0 updated, 199 unchanged\), 0 rejected of/,
    );
    expect(enrich(['export', 'people', '--id', person.id, '--db', db]).status).toBe(0);

    const bad = enrich(['suppress', 'people', '--abn', '51824753556', '--db', db]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--abn: abn does not identify people/);
  });

  it('refuses bad options with a clear message and exit code 1', () => {
    const scope = enrich(['keys', 'create', '--name', 'x', '--scopes', 'superuser', '--db', db]);
    expect(scope.status).not.toBe(0);
    expect(scope.stderr).toMatch(
      /unknown scope superuser; accepted: people:read, company:read, changes:read, changes:write, admin/,
    );
    const entity = enrich(['import', 'users', 'x.ndjson', '--db', db]);
    expect(entity.status).not.toBe(0);
    expect(entity.stderr).toMatch(/expected "people" or "companies"/);
    const audit = enrich(['audit', '--db', db]);
    expect(audit.status).toBe(1);
    expect(audit.stderr).toMatch(/give --record ID, --key ID or both/);
    expect(enrich(['usage', '--since', '2026-02-30', '--db', db]).stderr).toMatch(/expected a date/);
    const port = enrich(['serve', '--port', 'eighty', '--db', db]);
    expect(port.status).toBe(1);
    expect(port.stderr).toMatch(/port/);
  });
});

describe('enrich import counts what it inserted and what it updated', () => {
  const root = mkdtempSync(join(tmpdir(), 'enrich-counts-'));
  const countsDb = join(root, 'enrich.db');
  /** A generated set's directory; seed 0 is the demo's seed. */
  const generated = (seed: number) => {
    const out = join(root, `seed-${seed}`);
    const run = enrich([
      'generate',
      '--companies',
      '20',
      '--people',
      '100',
      '--seed',
      String(seed),
      '--out',
      out,
    ]);
    expect(run.status, run.stderr).toBe(0);
    return out;
  };
  const load = (entity: string, file: string, target = countsDb) => {
    const run = enrich(['import', entity, file, '--db', target]);
    expect(run.status, run.stderr).toBe(0);
    return run.stdout;
  };
  const stored = (entity: string) =>
    /(\d+) \w+ exported/.exec(enrich(['export', entity, '--db', countsDb]).stderr)?.[1];

  it('inserts a second seed beside the first, then counts a re-import of the first as unchanged', () => {
    const [demo, seven] = [generated(0), generated(7)];
    expect(load('companies', join(demo, 'companies.ndjson'))).toMatch(
      /20 companies imported \(20 inserted, 0 updated, 0 unchanged\)/,
    );
    expect(load('people', join(demo, 'people.ndjson'))).toMatch(
      /100 people imported \(100 inserted, 0 updated, 0 unchanged\)/,
    );
    expect(load('companies', join(seven, 'companies.ndjson'))).toMatch(
      /20 companies imported \(20 inserted, 0 updated, 0 unchanged\)/,
    );
    expect(load('people', join(seven, 'people.ndjson'))).toMatch(
      /100 people imported \(100 inserted, 0 updated, 0 unchanged\)/,
    );
    expect([stored('companies'), stored('people')]).toEqual(['40', '200']);
    expect(load('people', join(demo, 'people.ndjson'))).toMatch(
      /100 people imported \(0 inserted, 0 updated, 100 unchanged\)/,
    );
    expect(stored('people')).toBe('200');
  });

  it('counts an id repeated in a file as updated, into an empty store and into a filled one', () => {
    const file = join(root, 'repeat.ndjson');
    const lines = ['{"id":"fpA","name":"A"}', '{"id":"fpB","name":"B"}', '{"id":"fpA","name":"A again"}'];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const fresh = join(root, 'fresh.db');
    expect(load('people', file, fresh)).toMatch(
      /3 people imported \(2 inserted, 1 updated, 0 unchanged\), 0 rejected of 3 lines/,
    );
    expect(load('people', file, fresh)).toMatch(/3 people imported \(0 inserted, 2 updated, 1 unchanged\)/);
    expect(load('people', file)).toMatch(/3 people imported \(2 inserted, 1 updated, 0 unchanged\)/);
    const [again] = enrich(['export', 'people', '--id', 'fpA', '--db', fresh]).stdout.trim().split('\n');
    expect(JSON.parse(again!).name).toBe('A again');
  });
});

describe('enrich serve', () => {
  let server: ChildProcess;
  let base: string;
  let token: string;

  beforeAll(async () => {
    token = enrich(['keys', 'create', '--name', 'serve test', '--db', db]).stdout.trim().split('\n').at(-1)!;
    server = spawn(process.execPath, [ENRICH, 'serve', '--port', '0', '--db', db], {
      env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '' },
    });
    let stderr = '';
    server.stderr!.setEncoding('utf8');
    base = await new Promise<string>((resolve, reject) => {
      server.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      server.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
    });
  });
  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });

  it('serves lookups over HTTP, then finishes and exits 0 on SIGTERM', async () => {
    const person = JSON.parse(readFileSync(join(data, 'people.ndjson'), 'utf8').split('\n')[5]!);
    const res = await fetch(`${base}/people?work_email=${encodeURIComponent(person.emails.work[0].value)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).id).toBe(person.id);
    const miss = await fetch(`${base}/people?work_email=nobody%40nowhere.com`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(miss.status).toBe(404);
    // Served by a worker per core: the one answering /v1/usage folds its own journal first; the others fold
    // theirs every FOLD_EVERY_MS (200 ms, accounting/open.ts). A second leaves room for a busy machine.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const usage = await fetch(`${base}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect((await usage.json()).totals).toMatchObject({ requests: 2, matched: 1, not_found: 1 });
    server.kill('SIGTERM');
    const [code] = await once(server, 'exit');
    expect(code).toBe(0);
  });

  it('has audited and metered every lookup it served once it has shut down', () => {
    const keys = JSON.parse(enrich(['keys', 'list', '--json', '--db', db]).stdout);
    const keyId = keys.find((k: { name: string }) => k.name === 'serve test').id;
    const person = JSON.parse(readFileSync(join(data, 'people.ndjson'), 'utf8').split('\n')[5]!);
    const byKey = JSON.parse(enrich(['audit', '--key', keyId, '--json', '--db', db]).stdout);
    expect(byKey.map((e: { status: number; params: string[] }) => [e.status, e.params])).toEqual([
      [404, ['work_email']],
      [200, ['work_email']],
    ]);
    const byRecord = JSON.parse(enrich(['audit', '--record', person.id, '--json', '--db', db]).stdout);
    expect(byRecord).toHaveLength(1);
    expect(byRecord[0]).toMatchObject({
      key_id: keyId,
      key_name: 'serve test',
      operation: 'people',
      status: 200,
    });
    expect(enrich(['audit', '--record', person.id, '--db', db]).stdout).toMatch(/serve test\s+people\s+200/);
    const usage = JSON.parse(enrich(['usage', '--key', keyId, '--json', '--db', db]).stdout);
    expect(usage.totals).toEqual({ requests: 2, matched: 1, not_found: 1, ambiguous: 0, rejected: 0 });
    expect(usage.rows).toEqual([
      expect.objectContaining({ key_id: keyId, operation: 'people', requests: 2 }),
    ]);
  });
});
