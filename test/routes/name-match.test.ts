// /people by name and company, through every route (GET, POST, bulk): the likelihood header, the 400s of
// incomplete or contradictory parameters, 404 under min_likelihood, 409 for namesakes, and accounting — on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import type { RecordToStore } from '../../src/store/records.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

const INITECH = {
  id: 'fc7',
  name: 'Initech Pty. Ltd.',
  website: 'https://www.initech.example',
  linkedin: 'initech',
};

function prepared(record: object): RecordToStore {
  const line = prepareLine('people', JSON.stringify(record));
  if (line instanceof Invalid) throw new Error(line.message);
  return line;
}

const STAFF = [
  {
    id: 'fp000000000071',
    name: 'Robert Smith',
    first_name: 'Robert',
    last_name: 'Smith',
    current_company: INITECH,
  },
  { id: 'fp000000000072', name: 'Ana Lima', first_name: 'Ana', last_name: 'Lima', current_company: INITECH },
  { id: 'fp000000000073', name: 'Ana Lima', first_name: 'Ana', last_name: 'Lima', current_company: INITECH },
];

describe.each(SETUPS)('on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
    await t.store.upsert('people', STAFF.map(prepared));
  });
  afterAll(() => t.close());

  const get = (query: string, auth = t.auth) =>
    send({ method: 'GET', url: `/people?${query}`, headers: { authorization: auth } });

  it('answers the person with Enrich-Match-Likelihood and the parameters that matched', async () => {
    const res = await get('name=Bob%20Smith&company_domain=initech.example');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(JSON.stringify(STAFF[0]));
    expect(res.headers['enrich-match-likelihood']).toBe('8');
    expect(res.headers['enrich-matched-by']).toBe('name, company_domain');
    const exact = await get('first_name=robert&last_name=SMITH&company_id=fc7');
    expect(exact.headers['enrich-match-likelihood']).toBe('10');
    const byName = await get(`name=Robert+Smith&company_name=${encodeURIComponent('INITECH LIMITED')}`);
    expect(byName.headers['enrich-match-likelihood']).toBe('8');
  });

  it('sends no likelihood when an identifier matched, and the identifier decides', async () => {
    const res = await get('id=fp000000000001&name=Bob%20Smith&company_id=fc7');
    expect(res.json().id).toBe('fp000000000001');
    expect(res.headers['enrich-matched-by']).toBe('id');
    expect(res.headers['enrich-match-likelihood']).toBeUndefined();
    const plain = await get('id=fp000000000071');
    expect(plain.headers['enrich-match-likelihood']).toBeUndefined();
  });

  it('answers 404 under min_likelihood and 409 listing namesakes', async () => {
    const weak = await get('name=Bob%20Smith&company_id=fc7&min_likelihood=9');
    expect(weak.statusCode).toBe(404);
    expect(weak.json().detail).toContain('likelihood of 9');
    const twins = await get('name=Ana%20Lima&company_ln_slug=initech');
    expect(twins.statusCode).toBe(409);
    expect(twins.json().matches).toEqual({ name: ['fp000000000072', 'fp000000000073'] });
    // Never across companies: the Smith of Initech is nobody at Acme.
    expect((await get('name=Robert%20Smith&company_domain=acme.com.au')).statusCode).toBe(404);
  });

  it.each([
    ['name=Robert%20Smith', 'name', 'only within a company'],
    ['first_name=Robert&company_id=fc7', 'first_name', 'first_name needs last_name'],
    ['last_name=Smith&company_id=fc7', 'last_name', 'last_name needs first_name'],
    ['name=Robert&company_id=fc7', 'name', 'a first and a last name'],
    ['name=Robert%20Smith&first_name=Robert&last_name=Smith&company_id=fc7', 'name', 'not both'],
    ['name=Robert%20Smith&company_id=fc7&company_name=Initech', 'company_name', 'not several'],
    ['company_id=fc7', 'company_id', 'only to match a name'],
    ['work_email=a@b.co&company_id=fc7', 'company_id', 'only to match a name'],
    ['id=fp000000000071&min_likelihood=5', 'min_likelihood', 'applies only'],
    ['name=Robert%20Smith&company_id=fc7&min_likelihood=0', 'min_likelihood', 'from 1 to 10'],
    ['name=Robert%20Smith&company_id=fc7&min_likelihood=11', 'min_likelihood', 'from 1 to 10'],
    ['name=Robert%20Smith&company_id=fc7&min_likelihood=5.5', 'min_likelihood', 'from 1 to 10'],
    ['name=Robert%20Smith&company_id=a%20b', 'company_id', 'not a record id'],
    ['name=Robert%20Smith&company_name=...', 'company_name', 'no letter or digit'],
  ])('answers 400 to %s, naming %s', async (query, parameter, detail) => {
    const res = await get(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter });
    expect(res.json().detail).toContain(detail);
    expect(res.body).not.toContain('Robert');
  });

  it('answers a POST lookup and a bulk item as the GET, the bulk result with match_likelihood', async () => {
    const post = await send({
      method: 'POST',
      url: '/v1/people/lookup',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      payload: { name: 'Bob Smith', company_id: 'fc7' },
    });
    expect(post.statusCode).toBe(200);
    expect(post.headers['enrich-match-likelihood']).toBe('8');
    const bulk = await send({
      method: 'POST',
      url: '/v1/people/bulk',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      payload: {
        requests: [
          { params: { name: 'Bob Smith', company_id: 'fc7' } },
          { params: { id: 'fp000000000003' } },
          { params: { name: 'Ana Lima', company_id: 'fc7' } },
          { params: { name: 'Bob Smith' } },
        ],
      },
    });
    const { results } = bulk.json() as { results: Array<Record<string, unknown>> };
    expect(results[0]).toEqual({
      status: 'matched',
      matched_by: ['name', 'company_id'],
      match_likelihood: 8,
      record: STAFF[0],
    });
    expect(Object.keys(results[1]!)).toEqual(['status', 'matched_by', 'record']);
    expect(results.slice(2).map((r) => r.status)).toEqual(['ambiguous', 'invalid']);
  });

  it('counts a name match against the quota, and audits and meters it as a lookup', async () => {
    const key = await t.newKey({ quota: 1 });
    const first = await get('name=Robert%20Smith&company_id=fc7', key.auth);
    expect(first.headers['enrich-quota-remaining']).toBe('0');
    expect((await get('name=Robert%20Smith&company_id=fc7', key.auth)).statusCode).toBe(402);
    const usage = (await send({ url: '/v1/usage', headers: { authorization: key.auth } })).json();
    expect(usage.totals).toMatchObject({ requests: 2, matched: 1, rejected: 1 });
    const entries = await t.store.audit({ keyId: key.id });
    expect(entries.map(({ params, matched, status }) => ({ params, matched, status }))).toEqual([
      { params: ['name', 'company_id'], matched: ['fp000000000071'], status: 200 },
      { params: ['name', 'company_id'], matched: [], status: 402 },
    ]);
  });
});
