// POST /v1/people/lookup and /v1/company/lookup: the GET's answer, header by header and byte by byte, for the
// parameters in a JSON body; the body's own problems; the 405s around them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { PEOPLE, seed, type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

const JANE = PEOPLE[0]!;
const JANE_HASH = '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d';

/** Parameters sent both ways: every identifier kind, fields, 404s, 409s and every kind of 400. */
const CASES: Array<['people' | 'company', Record<string, string>]> = [
  ['people', { id: JANE.id }],
  ['people', { work_email: '  Jane.Citizen@ACME.com.au ' }],
  ['people', { personal_email: 'JANE@gmail.com' }],
  ['people', { ln_url: 'https://au.linkedin.com/in/jane-citizen/?trk=x#top' }],
  ['people', { ln_slug: 'jane-citizen', personal_email: 'nobody@nowhere.com' }],
  ['people', { work_email_sha256: JANE_HASH.toUpperCase() }],
  ['people', { id: JANE.id, work_email: 'jane.citizen@acme.com.au', fields: 'name,emails.work.value' }],
  ['people', { work_email: 'info@acme.com.au' }],
  ['people', { id: 'fp000000000003', work_email: 'jose@acme.com.au' }],
  ['people', { id: 'fp999999999999' }],
  ['people', {}],
  ['people', { fields: 'name' }],
  ['people', { work_email: '' }],
  ['people', { work_email: 'not-an-email' }],
  ['people', { work_email_sha256: 'abc' }],
  ['people', { id: JANE.id, fields: 'name,nonsense' }],
  ['people', { fqdn: 'acme.com.au' }],
  ['people', { api_key: 'enr_x' }],
  ['people', { ln_url: 'https://www.linkedin.com/company/acme-holdings' }],
  ['company', { website: 'https://shop.acme.com.au/about' }],
  ['company', { abn: '51 824 753 556', fields: 'name,industry_codes.abn' }],
  ['company', { abn: '51 824 753 557' }],
  ['company', { work_email: 'jane.citizen@acme.com.au' }],
];

/** Headers that may differ between two answers however equal: the clock's. */
const headersOf = (res: { headers: Record<string, unknown> }) => {
  const { date: _, ...rest } = res.headers;
  return rest;
};

describe.each(SETUPS)('POST lookups on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
  });
  afterAll(() => t.close());

  /** A fresh key per request, with a quota, so that rate-limit and quota headers start alike. */
  const freshKey = async () => (await t.newKey({ quota: 100 })).auth;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    send({
      method: 'POST',
      url: `/v1/${path}/lookup`,
      headers: { authorization: await freshKey(), 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = async (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    send({
      url: `/v1/${path}?${new URLSearchParams(params)}`,
      headers: { authorization: await freshKey(), ...headers },
    });

  it.each(CASES)('answers %s %j exactly as the GET does', async (path, params) => {
    const id = { 'x-request-id': 'same-request' };
    const [byGet, byPost] = [await get(path, params, id), await post(path, params, id)];
    expect(byPost.statusCode).toBe(byGet.statusCode);
    expect(headersOf(byPost)).toEqual(headersOf(byGet));
    expect(byPost.rawPayload.equals(byGet.rawPayload)).toBe(true);
  });

  it('answers 304 to If-None-Match as the GET does, fields or not', async () => {
    const cases: Array<Record<string, string>> = [
      { id: JANE.id },
      { work_email_sha256: JANE_HASH, fields: 'name' },
    ];
    for (const params of cases) {
      const tag = (await get('people', params)).headers.etag as string;
      const headers = { 'if-none-match': tag, 'x-request-id': 'conditional' };
      const [byGet, byPost] = [await get('people', params, headers), await post('people', params, headers)];
      expect(byPost.statusCode).toBe(304);
      expect(headersOf(byPost)).toEqual(headersOf(byGet));
      expect(byPost.body).toBe('');
    }
  });

  it('takes fields as a list of paths too', async () => {
    const asList = await post('people', { id: JANE.id, fields: ['name', 'current_company.name'] });
    const asText = await get('people', { id: JANE.id, fields: 'name,current_company.name' });
    expect(asList.statusCode).toBe(200);
    expect(asList.body).toBe(asText.body);
    expect(asList.headers.etag).toBe(asText.headers.etag);
  });

  it.each([
    [
      'a content type other than JSON',
      'text/plain',
      '{"id":"fp000000000001"}',
      415,
      'unsupported_media_type',
    ],
    ['no content type', undefined, '{"id":"fp000000000001"}', 415, 'unsupported_media_type'],
    ['malformed JSON', 'application/json', '{"id": "fp000000000001"', 400, 'invalid_body'],
    ['an empty body', 'application/json', '', 400, 'invalid_body'],
    ['a JSON array', 'application/json', '[{"id":"fp000000000001"}]', 400, 'invalid_body'],
    ['JSON null', 'application/json; charset=utf-8', 'null', 400, 'invalid_body'],
    ['a body over 64 KiB', 'application/json', `{"id":"${'x'.repeat(65_536)}"}`, 413, 'payload_too_large'],
  ])('refuses %s with a problem', async (_, type, payload, status, code) => {
    const res = await send({
      method: 'POST',
      url: '/v1/people/lookup',
      headers: { authorization: t.auth, ...(type ? { 'content-type': type } : {}) },
      payload,
    });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().code).toBe(code);
    expect(res.headers.ratelimit).toBeDefined();
  });

  it('refuses values that are not strings, naming the parameter', async () => {
    for (const [body, parameter] of [
      [{ id: 42 }, 'id'],
      [{ work_email: ['a@b.co'] }, 'work_email'],
      [{ id: JANE.id, fields: ['name', 7] }, 'fields'],
      [{ id: JANE.id, fields: { name: true } }, 'fields'],
    ] as const) {
      const res = await post('people', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter });
    }
  });

  it('checks the key before the body: no key, a 401 whatever the body', async () => {
    const res = await send({
      method: 'POST',
      url: '/v1/people/lookup',
      headers: { 'content-type': 'text/plain' },
      payload: 'not json',
    });
    expect(res.statusCode).toBe(401);
    const scoped = await t.newKey({ scopes: ['company:read'] });
    const forbidden = await send({
      method: 'POST',
      url: '/v1/people/lookup',
      headers: { authorization: scoped.auth, 'content-type': 'application/json' },
      payload: '{',
    });
    expect(forbidden.statusCode).toBe(403);
  });

  it('answers 405 with Allow: POST to any other method, and keeps the GET paths at GET, HEAD', async () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await send({
        method,
        url: '/v1/company/lookup',
        headers: { authorization: t.auth },
      });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
    }
    for (const url of ['/v1/people', '/people', '/company']) {
      const res = await send({ method: 'POST', url, headers: { authorization: t.auth } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    expect((await send({ method: 'POST', url: '/people/lookup' })).statusCode).toBe(404);
  });
});

describe('POST lookups over HTTP (served before the router)', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await testApp('sqlite');
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it('answers as the GET does', async () => {
    const params = { work_email: 'jane.citizen@acme.com.au', fields: 'name' };
    const headers = { authorization: t.auth, 'x-request-id': 'over-http' };
    const byGet = await fetch(`${url}/v1/people?${new URLSearchParams(params)}`, { headers });
    const byPost = await fetch(`${url}/v1/people/lookup`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    expect(byPost.status).toBe(200);
    expect(await byPost.text()).toBe(await byGet.text());
    expect(byPost.headers.get('etag')).toBe(byGet.headers.get('etag'));
    expect(byPost.headers.get('enrich-matched-by')).toBe('work_email');
  });

  it('refuses a streamed body as soon as it passes 64 KiB, without waiting for the rest', async () => {
    const chunk = new TextEncoder().encode(`{"id":"${'x'.repeat(40_000)}`);
    let sent = 0;
    // Two chunks, then a body that never ends: only an answer that does not wait for the end arrives.
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => (sent++ < 2 ? controller.enqueue(chunk) : new Promise<void>(() => {})),
    });
    const res = await fetch(`${url}/v1/people/lookup`, {
      method: 'POST',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect((await res.json()).code).toBe('payload_too_large');
  });
});

describe('POST lookups in the audit log and usage', () => {
  it('are audited and metered as the GET of the same operation: identifier names only, never fields', async () => {
    const store = openSqliteStore(':memory:');
    await seed(store, 'people', PEOPLE);
    const app = await buildApp({ store });
    const { key, token } = await issueKey(store, { name: 'audited', quota: 10 });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const params = { work_email_sha256: JANE_HASH, fields: 'name' };
    await app.inject({ url: `/v1/people?${new URLSearchParams(params)}`, headers });
    await app.inject({ method: 'POST', url: '/v1/people/lookup', headers, payload: params });
    await app.inject({ method: 'POST', url: '/v1/people/lookup', headers, payload: '{' });
    await app.close();
    const entries = (await store.audit({ keyId: key.id })).map(({ at: _, ...entry }) => entry);
    const found = { key_id: key.id, operation: 'people', params: ['work_email_sha256'], matched: [JANE.id] };
    expect(entries).toEqual([
      { ...found, status: 200 },
      { ...found, status: 200 },
      { key_id: key.id, operation: 'people', params: [], matched: [], status: 400 },
    ]);
    const [usage] = await store.usage({ keyId: key.id });
    expect(usage).toMatchObject({ operation: 'people', requests: 3, matched: 2, rejected: 1 });
    expect(await store.quotaUsed(key.id, new Date().toISOString().slice(0, 7))).toBe(2);
    await store.close();
  });
});
