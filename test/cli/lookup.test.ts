// enrich lookup: one lookup answered as the API answers it, on the local store or through a server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANIES, listeningApp, PEOPLE, ROBERT, type TestApp } from '../helpers/app.js';
import { enrich, enrichAsync } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-lookup-'));
const db = join(dir, 'enrich.db');

/** A problem document without its request id, which no two answers share. */
const withoutId = (text: string) => {
  const { request_id: _id, ...rest } = JSON.parse(text);
  return rest;
};

beforeAll(() => {
  const people = join(dir, 'people.ndjson');
  writeFileSync(people, [...PEOPLE, ROBERT].map((p) => JSON.stringify(p)).join('\n'));
  const companies = join(dir, 'companies.ndjson');
  writeFileSync(companies, COMPANIES.map((c) => JSON.stringify(c)).join('\n'));
  expect(enrich(['import', 'people', people, '--db', db]).status).toBe(0);
  expect(enrich(['import', 'companies', companies, '--db', db]).status).toBe(0);
});

describe('enrich lookup on the local store', () => {
  it('prints the record’s bytes as served with --json (exit 0), indented otherwise, and what matched', () => {
    const json = enrich([
      'lookup',
      'people',
      '--work-email',
      ' Jane.Citizen@ACME.com.au ',
      '--json',
      '--db',
      db,
    ]);
    expect(json.status).toBe(0);
    expect(json.stdout).toBe(`${JSON.stringify(PEOPLE[0])}\n`);
    const text = enrich(['lookup', 'people', '--ln-url', 'au.linkedin.com/in/jane-citizen/', '--db', db]);
    expect(text.status).toBe(0);
    expect(text.stdout).toBe(`${JSON.stringify(PEOPLE[0], null, 2)}\n`);
    expect(text.stderr).toBe('Matched by ln_url\n');
  });

  it('selects --fields as the API does, and takes --db before the command and a singular alias', () => {
    const run = enrich([
      '--db',
      db,
      'lookup',
      'company',
      '--fqdn',
      'WWW.ACME.COM.AU.',
      '--fields',
      'name',
      '--json',
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('{"id":"f000000000001","name":"Acme Holdings"}\n');
  });

  it('says how likely a match by name and company is', () => {
    const args = ['--name', 'Bob Example', '--company-domain', 'acme.com.au', '--fields', 'name'];
    const run = enrich(['lookup', 'people', ...args, '--db', db]);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: ROBERT.id, name: ROBERT.name });
    expect(run.stderr).toBe('Matched by name, company_domain (likelihood 8 of 10)\n');
  });

  it('exits 3 when nothing matches, printing the API’s problem document with --json', () => {
    const run = enrich(['lookup', 'people', '--id', 'fp999999999999', '--json', '--db', db]);
    expect(run.status).toBe(3);
    expect(withoutId(run.stdout)).toEqual({
      type: 'https://enrich.dev/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'No person matches the given identifiers.',
      code: 'not_found',
    });
    const text = enrich(['lookup', 'people', '--id', 'fp999999999999', '--db', db]);
    expect([text.status, text.stdout, text.stderr]).toEqual([
      3,
      '',
      'enrich: No person matches the given identifiers.\n',
    ]);
  });

  it('exits 4 when several records match, listing which identifier matched which ids', () => {
    const run = enrich(['lookup', 'people', '--work-email', 'info@acme.com.au', '--db', db]);
    expect(run.status).toBe(4);
    expect(run.stderr).toBe(
      'enrich: The identifiers match 2 different records; give one that identifies a single record.\n' +
        '  work_email: fp000000000001, fp000000000002\n',
    );
    const json = enrich(['lookup', 'people', '--work-email', 'info@acme.com.au', '--json', '--db', db]);
    expect(JSON.parse(json.stdout).matches).toEqual({ work_email: ['fp000000000001', 'fp000000000002'] });
  });

  it.each([
    ['no identifier', [], 'missing_identifier', /^Give at least one identifier: id, ln_slug/],
    [
      'an unknown one',
      ['--fqdn', 'acme.com.au'],
      'unknown_parameter',
      /^Unknown parameter "fqdn"; accepted: id,/,
    ],
    ['a repeated one', ['--id', 'a', '--id', 'b'], 'invalid_parameter', /^id is given more than once\.$/],
    ['an empty one', ['--work-email', ' '], 'invalid_parameter', /^work_email is empty\.$/],
    ['a bad value', ['--work-email', 'not-an-email'], 'invalid_parameter', /^work_email: not an e-mail/],
    [
      'an unknown field',
      ['--id', 'fp000000000001', '--fields', 'shoe_size'],
      'invalid_parameter',
      /shoe_size/,
    ],
  ])('exits 2 for %s, with the API’s 400', (_what, args, code, detail) => {
    const run = enrich(['lookup', 'people', ...args, '--json', '--db', db]);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 400,
      code,
      detail: expect.stringMatching(detail),
    });
  });

  it('exits 1 when there is no store, rather than creating an empty one', () => {
    const run = enrich(['lookup', 'people', '--id', 'fp000000000001', '--db', join(dir, 'none.db')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^enrich: no store at .*none\.db/);
  });

  it('leaves nothing in the audit log or the usage: no key made the lookup', () => {
    expect(enrich(['lookup', 'people', '--id', 'fp000000000003', '--db', db]).status).toBe(0);
    const audit = enrich(['audit', '--record', 'fp000000000003', '--json', '--db', db]);
    expect(JSON.parse(audit.stdout)).toEqual([]);
    expect(JSON.parse(enrich(['usage', '--json', '--db', db]).stdout).rows).toEqual([]);
  });
});

describe('enrich lookup through a server', () => {
  let server: TestApp;
  let url: string;

  beforeAll(async () => {
    server = await listeningApp();
    url = (server as TestApp & { url: string }).url;
  });

  afterAll(() => server?.close());

  it('answers as the local store does: the same bytes, problems and exit codes', async () => {
    for (const args of [
      ['people', '--work-email', 'jane.citizen@acme.com.au'],
      ['people', '--name', 'Bob Example', '--company-domain', 'acme.com.au', '--fields', 'name'],
      ['people', '--work-email', 'info@acme.com.au'],
      ['people', '--id', 'fp999999999999'],
      ['people', '--fqdn', 'acme.com.au'],
      ['people', '--id', 'a', '--id', 'b'],
      ['companies', '--abn', '51 824 753 557'],
    ]) {
      const local = enrich(['lookup', ...args, '--json', '--db', db]);
      const remote = await enrichAsync(['lookup', ...args, '--json', '--url', url, '--token', server.token]);
      expect(remote.status, args.join(' ')).toBe(local.status);
      if (local.status === 0) expect(remote.stdout).toBe(local.stdout);
      else expect(withoutId(remote.stdout)).toEqual(withoutId(local.stdout));
    }
  }, 120_000);

  it('takes ENRICH_URL and ENRICH_TOKEN, and shows what matched from the headers', async () => {
    const run = await enrichAsync(
      ['lookup', 'people', '--name', 'Robert Example', '--company-id', 'f000000000001'],
      {
        ENRICH_URL: url,
        ENRICH_TOKEN: server.token,
      },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('Matched by name, company_id (likelihood 10 of 10)\n');
  });

  it('exits 5 when the server refuses the token or its quota, with the server’s reason', async () => {
    const jane = ['lookup', 'people', '--id', 'fp000000000001', '--url', url];
    const refused = await enrichAsync([...jane, '--token', 'enr_wrong']);
    expect(refused.status).toBe(5);
    expect(refused.stderr).toMatch(/^enrich: /);
    const spent = await server.newKey({ quota: 1 });
    const args = [...jane, '--token', spent.token, '--json'];
    expect((await enrichAsync(args)).status).toBe(0);
    const over = await enrichAsync(args);
    expect(over.status).toBe(5);
    expect(JSON.parse(over.stdout)).toMatchObject({ status: 402, code: 'quota_exceeded' });
  });

  it('exits 1 when the server cannot be reached', async () => {
    const run = await enrichAsync([
      'lookup',
      'people',
      '--id',
      'x',
      '--url',
      'http://127.0.0.1:9',
      '--token',
      't',
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^enrich: http:\/\/127\.0\.0\.1:9 cannot be reached/);
  });
});
