import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEOPLE, type TestApp, testApp } from '../helpers/app.js';

const APP_ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://evil.example.net';
const LOOKUP_PATHS = ['/people', '/company', '/v1/people', '/v1/company'];
const PERSON = `/people?id=${PEOPLE[0]!.id}`;

/** Every header browser code needs to read from a lookup's answer. */
const EXPOSED = [
  'etag',
  'enrich-matched-by',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'x-request-id',
  'enrich-quota-remaining',
];

const preflight = (origin: string, method = 'GET') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization, if-none-match',
});

/** A test app listening on 127.0.0.1, where lookups are answered before Fastify's router. */
async function listening(corsOrigins?: string[]): Promise<TestApp & { url: string }> {
  const t = await testApp('sqlite', corsOrigins ? { corsOrigins } : {});
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...t, url };
}

describe('with CORS off (the default)', () => {
  let t: TestApp & { url: string };
  beforeAll(async () => {
    t = await listening();
  });
  afterAll(() => t.close());

  it.each(LOOKUP_PATHS)('answers OPTIONS %s with 405 and Allow, preflight or not', async (path) => {
    const res = await t.app.inject({ method: 'OPTIONS', url: path, headers: preflight(APP_ORIGIN) });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds no CORS header to a lookup or to any other response', async () => {
    const served = await fetch(`${t.url}${PERSON}`, {
      headers: { authorization: t.auth, origin: APP_ORIGIN },
    });
    expect(served.status).toBe(200);
    expect([...served.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(served.headers.get('vary')).toBeNull();
    const docs = await t.app.inject({ url: '/openapi.json', headers: { origin: APP_ORIGIN } });
    expect(docs.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('with CORS on for listed origins', () => {
  let t: TestApp & { url: string };
  beforeAll(async () => {
    t = await listening([APP_ORIGIN]);
  });
  afterAll(() => t.close());

  it.each(LOOKUP_PATHS)('answers a preflight of %s with 204, the methods and the headers', async (path) => {
    const res = await t.app.inject({ method: 'OPTIONS', url: path, headers: preflight(APP_ORIGIN) });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-allow-methods']).toMatch(/\bGET\b/);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'if-none-match', 'x-request-id']),
    );
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(res.headers.vary).toMatch(/origin/i);
  });

  it('answers a preflight over a real connection too', async () => {
    const res = await fetch(`${t.url}/people`, { method: 'OPTIONS', headers: preflight(APP_ORIGIN) });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('gives an unlisted origin no permission', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/people', headers: preflight(OTHER_ORIGIN) });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const served = await fetch(`${t.url}${PERSON}`, {
      headers: { authorization: t.auth, origin: OTHER_ORIGIN },
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('access-control-allow-origin')).toBeNull();
    expect(served.headers.get('vary')).toBe('Origin');
  });

  it('still answers 405 to an OPTIONS that is not a preflight', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/people', headers: { origin: APP_ORIGIN } });
    expect(res.statusCode).toBe(405);
  });

  it('lets browser code read every header of a lookup, on the server and through the router', async () => {
    const key = await t.newKey({ quota: 100 });
    const headers = { authorization: key.auth, origin: APP_ORIGIN };
    const served = await fetch(`${t.url}${PERSON}`, { headers });
    expect(served.status).toBe(200);
    const routed = await t.app.inject({ url: `/v1${PERSON}`, headers });
    expect(routed.statusCode).toBe(200);
    for (const get of [(n: string) => served.headers.get(n), (n: string) => routed.headers[n] as string]) {
      expect(get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(get('vary')).toBe('Origin');
      const exposed = get('access-control-expose-headers')!.toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(EXPOSED));
    }
    expect(served.headers.get('enrich-quota-remaining')).not.toBeNull();
  });

  it('keeps the CORS headers on a lookup that fails', async () => {
    const res = await fetch(`${t.url}/people?id=fp000000000999`, {
      headers: { authorization: t.auth, origin: APP_ORIGIN },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const unauthorised = await fetch(`${t.url}${PERSON}`, { headers: { origin: APP_ORIGIN } });
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('covers bulk lookups: a preflight of the POST, and the JSON and stream answers', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/people/bulk',
      headers: preflight(APP_ORIGIN),
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toMatch(/\bPOST\b/);
    for (const [type, body] of [
      ['application/json', JSON.stringify({ requests: [{ params: { id: 'fp000000000001' } }] })],
      ['application/x-ndjson', '{"params": {"id": "fp000000000001"}}\n'],
    ]) {
      const res = await fetch(`${t.url}/v1/people/bulk`, {
        method: 'POST',
        headers: { authorization: t.auth, origin: APP_ORIGIN, 'content-type': type! },
        body,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(res.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('ratelimit');
    }
  });

  it('covers the other routes too', async () => {
    const res = await t.app.inject({
      url: '/v1/usage',
      headers: { authorization: t.auth, origin: APP_ORIGIN },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('ratelimit');
  });
});

describe('with CORS on for any origin', () => {
  let t: TestApp & { url: string };
  beforeAll(async () => {
    t = await listening(['*']);
  });
  afterAll(() => t.close());

  it('allows every origin, on a preflight and on a lookup', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/company', headers: preflight(OTHER_ORIGIN) });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const served = await fetch(`${t.url}${PERSON}`, {
      headers: { authorization: t.auth, origin: OTHER_ORIGIN },
    });
    expect(served.headers.get('access-control-allow-origin')).toBe('*');
    expect(served.headers.get('access-control-expose-headers')).toMatch(/Enrich-Matched-By/);
  });
});
