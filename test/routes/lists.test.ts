// /v1/lists on both stores: uploads matched in the background exactly as `enrich match` matches them, each row
// charged once, a key's lists its own, bad uploads refused with problems, and a job resumed after a restart.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import * as engine from '../../src/ingest/match/index.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import type { Entity } from '../../src/vocabulary/entities.js';
import { BACKENDS, PEOPLE, seed, type TestApp, testApp } from '../helpers/app.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-lists-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PEOPLE_ROWS = [
  'Jane,jane.citizen@acme.com.au',
  'Shared,info@acme.com.au',
  'Nobody,nobody@example.com',
  'Blank,',
  'Sam,"sam.lee@outlook.com"',
];
const peopleCsv = (rows: number) =>
  `Name,Email\n${Array.from({ length: rows }, (_, i) => PEOPLE_ROWS[i % PEOPLE_ROWS.length]).join('\n')}\n`;
const COMPANIES_NDJSON = `${[
  { ref: 'a', website: 'https://www.acme.com.au/about' },
  { ref: 'b', abn: '51 824 753 556' },
  { ref: 'c', fqdn: 'unknown.example' },
]
  .map((o) => JSON.stringify(o))
  .join('\n')}\n`;

/** What `enrich match` writes for this list over this store (its engine, run as the command runs it). */
async function enrichMatch(store: Store, entity: Entity, text: string): Promise<string> {
  const input = join(dir, `in-${Math.random()}`);
  const output = join(dir, `out-${Math.random()}`);
  writeFileSync(input, text);
  const list = await engine.openList(input);
  const operation = engine.operationOf(entity);
  const uses = engine.mapColumns(list.reader.columns, operation, []);
  const out = engine.listOutput(output);
  await engine.matchList({
    reader: list.reader,
    paramsOf: engine.paramsOfRows(list.shape, uses, operation, []),
    resolver: engine.localResolver(store, operation),
    writer: engine.listWriter(list.shape, list.reader.columns, undefined, { entity }),
    out,
  });
  await out.close();
  return readFileSync(output, 'utf8');
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const backend of BACKENDS) {
  describe(`lists on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await testApp(backend, { lists: { pollMs: 100 } });
    });
    afterAll(() => t.close());

    const upload = (body: string, query = 'entity=people', type = 'text/csv', auth = t.auth) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/lists?${query}`,
        headers: { authorization: auth, 'content-type': type },
        payload: body,
      });
    const progress = (id: string, auth = t.auth) =>
      t.app.inject({ url: `/v1/lists/${id}`, headers: { authorization: auth } });
    const finished = (id: string, auth = t.auth) =>
      until(
        async () => (await progress(id, auth)).json(),
        (job) => job.status === 'done' || job.status === 'failed',
      );

    it('matches an uploaded CSV as enrich match does, each row charged and audited once', async () => {
      const key = await t.newKey({ scopes: ['people:read'] });
      const csv = peopleCsv(25);
      const created = await upload(csv, 'entity=people', 'text/csv; charset=utf-8', key.auth);
      expect(created.statusCode).toBe(202);
      const { id, status, mapping } = created.json();
      expect(id).toMatch(/^ls_/);
      expect(['queued', 'running', 'done']).toContain(status);
      expect(mapping).toEqual([{ column: 'Email', params: ['work_email', 'personal_email'] }]);
      const job = await finished(id, key.auth);
      expect(job).toMatchObject({ status: 'done', rows: 25, processed: 25, problem: null });
      expect(job.matched + job.not_found + job.ambiguous + job.invalid).toBe(25);
      const result = await t.app.inject({
        url: `/v1/lists/${id}/result`,
        headers: { authorization: key.auth },
      });
      expect(result.statusCode).toBe(200);
      expect(result.headers['content-type']).toMatch(/^text\/csv/);
      expect(result.body).toBe(await enrichMatch(t.store, 'people', csv));
      const audit = await t.store.audit({ keyId: key.id });
      expect(audit).toHaveLength(25);
      expect(audit.filter((entry) => entry.status === 200)).toHaveLength(job.matched);
    });

    it('matches an NDJSON list of companies', async () => {
      const created = await upload(COMPANIES_NDJSON, 'entity=companies', 'application/x-ndjson');
      expect(created.statusCode).toBe(202);
      const job = await finished(created.json().id);
      expect(job).toMatchObject({ status: 'done', format: 'ndjson', rows: 3, matched: 2, not_found: 1 });
      const result = await t.app.inject({
        url: `/v1/lists/${job.id}/result`,
        headers: { authorization: t.auth },
      });
      expect(result.body).toBe(await enrichMatch(t.store, 'companies', COMPANIES_NDJSON));
    });

    it('takes a column mapping as enrich match --map does', async () => {
      const created = await upload(
        'Who,Address\nJane,jane.citizen@acme.com.au\n',
        'entity=people&map=Address%3Dwork_email',
      );
      expect(created.statusCode).toBe(202);
      expect(created.json().mapping).toEqual([{ column: 'Address', params: ['work_email'] }]);
      expect((await finished(created.json().id)).matched).toBe(1);
    });

    it('refuses a key without the entity’s scope (403), and hides another key’s lists (404)', async () => {
      const companiesOnly = await t.newKey({ scopes: ['company:read'] });
      const refused = await upload(peopleCsv(2), 'entity=people', 'text/csv', companiesOnly.auth);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      const mine = (await upload(peopleCsv(2))).json().id;
      const other = await t.newKey();
      for (const url of [`/v1/lists/${mine}`, `/v1/lists/${mine}/result`]) {
        const seen = await t.app.inject({ url, headers: { authorization: other.auth } });
        expect(seen.statusCode).toBe(404);
        expect(seen.json().code).toBe('not_found');
      }
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/v1/lists/${mine}`,
        headers: { authorization: other.auth },
      });
      expect(deleted.statusCode).toBe(404);
      expect((await progress(mine)).statusCode).toBe(200);
    });

    it('answers bad uploads with problems', async () => {
      const cases = [
        { body: '', query: 'entity=people', type: 'text/csv', status: 400, code: 'invalid_body' },
        {
          body: peopleCsv(1),
          query: 'entity=people',
          type: 'application/json',
          status: 415,
          code: 'unsupported_media_type',
        },
        { body: peopleCsv(1), query: '', type: 'text/csv', status: 400, code: 'invalid_parameter' },
        {
          body: peopleCsv(1),
          query: 'entity=robots',
          type: 'text/csv',
          status: 400,
          code: 'invalid_parameter',
        },
        {
          body: 'Name,Colour\nJane,red\n',
          query: 'entity=people',
          type: 'text/csv',
          status: 400,
          code: 'invalid_body',
        },
        {
          body: '\u0000\u0001\u0002binary',
          query: 'entity=people',
          type: 'text/csv',
          status: 400,
          code: 'invalid_body',
        },
        {
          body: COMPANIES_NDJSON,
          query: 'entity=companies',
          type: 'text/csv',
          status: 400,
          code: 'invalid_body',
        },
        {
          body: peopleCsv(1),
          query: 'entity=people&map=nothing',
          type: 'text/csv',
          status: 400,
          code: 'invalid_parameter',
        },
        {
          body: peopleCsv(1),
          query: 'entity=people&fields=nope',
          type: 'text/csv',
          status: 400,
          code: 'invalid_parameter',
        },
        {
          body: peopleCsv(1),
          query: 'entity=people&colour=red',
          type: 'text/csv',
          status: 400,
          code: 'unknown_parameter',
        },
      ];
      for (const c of cases) {
        const answer = await upload(c.body, c.query, c.type);
        expect({ query: c.query, status: answer.statusCode, code: answer.json().code }).toEqual({
          query: c.query,
          status: c.status,
          code: c.code,
        });
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    });

    it('lists the key’s lists newest first, paged, and deletes one', async () => {
      const key = await t.newKey();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await upload(peopleCsv(1), 'entity=people', 'text/csv', key.auth)).json().id);
        await new Promise((r) => setTimeout(r, 5));
      }
      const first = await t.app.inject({ url: '/v1/lists?limit=2', headers: { authorization: key.auth } });
      expect(first.json().data.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
      expect(first.json().has_more).toBe(true);
      const second = await t.app.inject({
        url: `/v1/lists?limit=2&after=${first.json().next}`,
        headers: { authorization: key.auth },
      });
      expect(second.json()).toMatchObject({ has_more: false, next: null });
      expect(second.json().data.map((j: { id: string }) => j.id)).toEqual([ids[0]]);
      const gone = await t.app.inject({
        method: 'DELETE',
        url: `/v1/lists/${ids[0]}`,
        headers: { authorization: key.auth },
      });
      expect(gone.statusCode).toBe(204);
      expect((await progress(ids[0]!, key.auth)).statusCode).toBe(404);
    });

    it('stops a job whose key is revoked while it runs', async () => {
      // 5 rows a second: the job outlasts the revocation.
      const key = await t.newKey({ rate: 5 });
      const created = await upload(peopleCsv(40), 'entity=people', 'text/csv', key.auth);
      const id = created.json().id;
      await until(
        async () => (await t.store.getList(key.id, id))!.processed,
        (n) => n > 0,
      );
      await t.store.revokeKey(key.id, new Date());
      const job = await until(
        async () => (await t.store.getList(key.id, id))!,
        (j) => j.status === 'failed',
      );
      expect(job.status).toBe('failed');
      expect(JSON.parse(job.problem!).code).toBe('unauthorized');
      expect(job.processed).toBeLessThan(40);
      expect(await t.store.audit({ keyId: key.id })).toHaveLength(job.processed);
    });

    it('stops a job when the key’s quota is used up, with the problem', async () => {
      const key = await t.newKey({ quota: 2 });
      const created = await upload(
        'Email\njane.citizen@acme.com.au\njane@gmail.com\nsam.lee@outlook.com\njose@acme.com.au\n',
        'entity=people',
        'text/csv',
        key.auth,
      );
      const job = await finished(created.json().id, key.auth);
      expect(job.status).toBe('failed');
      expect(job.problem.code).toBe('quota_exceeded');
      expect(job.matched).toBe(2);
      const result = await t.app.inject({
        url: `/v1/lists/${job.id}/result`,
        headers: { authorization: key.auth },
      });
      expect(result.statusCode).toBe(409);
      expect(result.json()).toMatchObject({ code: 'list_not_ready', status: 409, list_status: 'failed' });
    });
  });
}

describe('a list job across a restart', () => {
  it('resumes where it stopped, charging no row twice', async () => {
    const store = openSqliteStore(join(dir, 'restart.db'));
    await seed(store, 'people', PEOPLE);
    const listsDir = join(dir, 'restart');
    // 20 rows a second: a chunk of 4 rows every fifth of a second.
    const { key, token } = await issueKey(store, { name: 'slow', rate: 20 });
    const auth = `Bearer ${token}`;
    const csv = peopleCsv(60);
    const first = await buildApp({ store, lists: { dir: listsDir, pollMs: 50 } });
    const created = await first.inject({
      method: 'POST',
      url: '/v1/lists?entity=people',
      headers: { authorization: auth, 'content-type': 'text/csv' },
      payload: csv,
    });
    const id = created.json().id;
    // Read from the store: the key's own requests would take from the bucket the job is paced by.
    await until(
      async () => (await store.getList(key.id, id))!.processed,
      (n) => n >= 8,
    );
    await first.close();
    const stopped = (await store.getList(key.id, id))!;
    expect(stopped.status).toBe('queued');
    expect(stopped.processed).toBeGreaterThan(0);
    expect(stopped.processed).toBeLessThan(60);

    // No journal of its own: two apps in one process would name their journal segments alike (pid and start
    // time), and the list's charges are folded into the store directly in any case.
    const second = await buildApp({ store, accounting: false, lists: { dir: listsDir, pollMs: 50 } });
    await second.ready();
    try {
      await until(
        async () => (await store.getList(key.id, id))!.status,
        (status) => status === 'done',
      );
      expect(await store.getList(key.id, id)).toMatchObject({ status: 'done', processed: 60, rows: 60 });
      // The job took the key's bucket: asked again until a token is there.
      const result = await until(
        () => second.inject({ url: `/v1/lists/${id}/result`, headers: { authorization: auth } }),
        (answer) => answer.statusCode !== 429,
      );
      expect(result.body).toBe(await enrichMatch(store, 'people', csv));
      expect(await store.audit({ keyId: key.id })).toHaveLength(60);
    } finally {
      await second.close();
      await store.close();
    }
  });
});
