import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemError } from '../../src/errors.js';
import { problemDocument } from '../../src/http/problem.js';
import { FieldCatalogue, projectRecord } from '../../src/lookup/fields.js';
import { lookupItem } from '../../src/lookup/item.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../../src/lookup/operations.js';
import { Company } from '../../src/schemas/company.js';
import { Person } from '../../src/schemas/person.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { COMPANIES, listeningApp, PEOPLE, type TestApp } from '../helpers/app.js';
import { enrich, enrichAsync } from '../helpers/cli.js';

interface BulkApi {
  url: string;
  token: string;
  /** The status of each request answered, in order. */
  statuses: number[];
  close(): Promise<void>;
}

const TOKEN = 'enr_test_bulk_token';

const ROUTES: Record<string, [LookupOperation, FieldCatalogue]> = {
  '/v1/people/bulk': [PEOPLE_LOOKUP as LookupOperation, new FieldCatalogue(Person)],
  '/v1/company/bulk': [COMPANY_LOOKUP as LookupOperation, new FieldCatalogue(Company)],
};

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = status === 200 ? 'application/json' : 'application/problem+json';
  res.writeHead(status, { 'content-type': type, ...headers }).end(JSON.stringify(body));
}

async function jsonBody(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A stand-in for the server's bulk API, to its agreed contract, over the real store at `db` with lookupItem.
 * The first request is answered 429 with Retry-After, as a busy server would. (When the real route lands,
 * this is the one function to swap for `enrich serve` and a key.)
 */
async function bulkApi(db: string): Promise<BulkApi> {
  const store = openSqliteStore(db);
  const statuses: number[] = [];
  let received = 0;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const route = ROUTES[req.url ?? ''];
    if (!route || req.method !== 'POST') return reply(res, 404, { status: 404, title: 'Not found' });
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return reply(res, 401, {
        status: 401,
        title: 'Unauthorized',
        detail: 'The bearer token is not known.',
      });
    if (++received === 1) {
      const limited = { status: 429, title: 'Too many requests' };
      return reply(res, 429, limited, { 'retry-after': '1', ratelimit: '"default";r=0;t=1' });
    }
    const [operation, catalogue] = route;
    const body = await jsonBody(req);
    const tree = body.fields ? catalogue.parse(body.fields) : undefined;
    const summary = { matched: 0, not_found: 0, ambiguous: 0, invalid: 0 };
    const results = [];
    for (const { params, ref } of body.requests) {
      const item = await lookupItem(store, operation, params);
      summary[item.status]++;
      if (item.status === 'matched') {
        const text = tree ? projectRecord(item.record.body, tree) : String(item.record.body);
        results.push({ ref, status: 'matched', matched_by: item.matchedBy, record: JSON.parse(text) });
      } else {
        const problem = JSON.parse(problemDocument(item.problem as ProblemError, 'req'));
        results.push({ ref, status: item.status, problem });
      }
    }
    reply(res, 200, { results, summary }, { ratelimit: '"default";r=49;t=0' });
  };
  const server = createServer((req, res) => {
    answer(req, res)
      .catch((error) => reply(res, 500, { status: 500, title: String(error) }))
      .finally(() => statuses.push(res.statusCode));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: TOKEN,
    statuses,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'enrich-match-remote-'));
const db = join(dir, 'enrich.db');
let api: BulkApi;

function list(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

beforeAll(async () => {
  const people = list('people.ndjson', PEOPLE.map((p) => JSON.stringify(p)).join('\n'));
  const companies = list('companies.ndjson', COMPANIES.map((c) => JSON.stringify(c)).join('\n'));
  expect(enrich(['import', 'people', people, '--db', db]).status).toBe(0);
  expect(enrich(['import', 'companies', companies, '--db', db]).status).toBe(0);
  api = await bulkApi(db);
});

afterAll(() => api?.close());

/** 2,500 rows: three chunks of the bulk API, a mix of matches, misses, invalid rows and a malformed one. */
function bigList(): string {
  const emails = [
    'jane.citizen@acme.com.au',
    'nobody@nowhere.com.au',
    'info@acme.com.au',
    'not-an-email',
    'sam.lee@outlook.com',
  ];
  const rows = ['Row,E-mail,Company'];
  for (let i = 0; i < 2500; i++) rows.push(`${i},${emails[i % emails.length]},"Acme, ${i}"`);
  rows[1234] = '1233,malformed';
  return `${rows.join('\n')}\n`;
}

describe('enrich match through a server’s bulk API', () => {
  it('writes what a local match writes, in order, waiting out a 429’s Retry-After', async () => {
    const file = list('big.csv', bigList());
    const local = enrich(['match', 'people', file, '--fields', 'name,emails.personal.value', '--db', db]);
    const started = Date.now();
    const remote = await enrichAsync(['match', 'people', file, '--fields', 'name,emails.personal.value'], {
      ENRICH_URL: api.url,
      ENRICH_TOKEN: api.token,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(api.statuses).toEqual([429, 200, 200, 200]); // 1,000 + 1,000 + 500 rows
    expect(remote.stderr).toContain('rate limited by the server; waiting 1.0 s');
    expect(remote.stderr).toContain(`${file}:1235: 2 fields where the header has 3`);
    expect(remote.stderr).toContain(
      '2,500 rows: 1,000 matched (40.0%), 500 not found, 500 ambiguous, 500 invalid (1 malformed)',
    );
    expect(remote.status).toBe(1);
    expect(remote.stdout).toBe(local.stdout);
  });

  it('matches companies with --url and --token', async () => {
    const file = list('companies.csv', 'Website\nacme.com.au\nnowhere.example\n');
    const run = await enrichAsync(['match', 'companies', file, '--url', `${api.url}/`, '--token', api.token]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('acme.com.au,matched,website,f000000000001,\n');
    expect(JSON.stringify(run)).not.toContain(api.token);
  });

  it('matches against the local store when --db names one, whatever ENRICH_URL says', async () => {
    const file = list('local.csv', 'Email\njane.citizen@acme.com.au\n');
    const before = api.statuses.length;
    const run = await enrichAsync(['match', 'people', file, '--db', db], {
      ENRICH_URL: api.url,
      ENRICH_TOKEN: api.token,
    });
    expect(run.stdout).toContain(',matched,work_email,fp000000000001,,\n');
    expect(api.statuses.length).toBe(before);
  });

  it('stops with the server’s reason when it refuses the token', async () => {
    const file = list('refused.csv', 'Email\njane.citizen@acme.com.au\n');
    const out = join(dir, 'refused-out.csv');
    for (const target of [[], ['--out', out]]) {
      const run = await enrichAsync([
        'match',
        'people',
        file,
        '--url',
        api.url,
        '--token',
        'enr_wrong',
        ...target,
      ]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        'the server refused the list (401): Unauthorized: The bearer token is not known.',
      );
      // Not even the CSV header: nothing is written before the server has answered.
      expect(run.stdout).toBe('');
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe('enrich match through the real server', () => {
  let server: TestApp;
  let url: string;

  beforeAll(async () => {
    server = await listeningApp();
    url = (server as TestApp & { url: string }).url;
  });

  afterAll(() => server?.close());

  it('writes the likelihood of a match by name and why a row was not matched, as a local match does', async () => {
    const file = list(
      'names-remote.csv',
      'Name,Company Website\nBob Example,acme.com.au\nRobert,acme.com.au\n',
    );
    const run = await enrichAsync(['match', 'people', file, '--url', url, '--token', server.token]);
    expect(run.stderr).toContain('2 rows: 1 matched');
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toBe(
      'Name,Company Website,enrich_status,enrich_matched_by,enrich_id,enrich_likelihood,enrich_problem',
    );
    expect(rows[0]).toBe('Bob Example,acme.com.au,matched,name; company_domain,fp000000000009,8,');
    expect(rows[1]).toMatch(/^Robert,acme\.com\.au,invalid,,,,\S/);
  });

  it('writes nothing, not even the header, when the server refuses the token', async () => {
    const file = list('names-refused.csv', 'Email\njane.citizen@acme.com.au\n');
    const run = await enrichAsync(['match', 'people', file, '--url', url, '--token', 'enr_wrong']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/the server refused the list \(401\)/);
  });
});
