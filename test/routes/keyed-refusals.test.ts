// Every keyed route refuses alike: each is walked through each refusal — no token, a bad one, an address
// over its limit, a revoked or expired key, the wrong scope, the rate, the quota — and answers the same
// status, problem code and headers, on both stores, through inject() and over a real socket. Where a route
// differs today, the case says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import type { Scope } from '../../src/vocabulary/operations.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { type Over, type Send, type SendOptions, sender } from '../helpers/transport.js';

interface KeyedRoute {
  name: string;
  /** A request the route answers 200 to, for a key with its scope. */
  request: SendOptions;
  /** The scope it needs; none: any live key will do. */
  scope?: Scope;
  /**
   * Whether the tokenless request that takes an address over its limit is answered 429 at once, or still
   * 401 with the address refused from its next request (searches and bulk, which write their own 401).
   */
  overLimit: 'at once' | 'from the next request';
  /** How the quota meets a key that has used it up: a 402, item by item in a 200, or not at all. */
  quota: 'refused' | 'per item' | 'per item, without the header' | 'not applied' | 'reported';
}

const PERSON = 'fp000000000001';
const COMPANY = 'f000000000001';
const NDJSON = { 'content-type': 'application/x-ndjson' };

const ROUTES: KeyedRoute[] = [
  {
    name: 'GET /people',
    request: { url: `/people?id=${PERSON}` },
    scope: 'people:read',
    overLimit: 'at once',
    quota: 'refused',
  },
  {
    name: 'HEAD /v1/people',
    request: { method: 'HEAD', url: `/v1/people?id=${PERSON}` },
    scope: 'people:read',
    overLimit: 'at once',
    quota: 'refused',
  },
  {
    name: 'GET /v1/company',
    request: { url: `/v1/company?id=${COMPANY}` },
    scope: 'company:read',
    overLimit: 'at once',
    quota: 'refused',
  },
  {
    name: 'POST /v1/people/lookup',
    request: { method: 'POST', url: '/v1/people/lookup', payload: { id: PERSON } },
    scope: 'people:read',
    overLimit: 'at once',
    quota: 'refused',
  },
  {
    name: 'POST /v1/company/lookup',
    request: { method: 'POST', url: '/v1/company/lookup', payload: { id: COMPANY } },
    scope: 'company:read',
    overLimit: 'at once',
    quota: 'refused',
  },
  {
    name: 'POST /v1/people/bulk (JSON)',
    request: { method: 'POST', url: '/v1/people/bulk', payload: { requests: [{ params: { id: PERSON } }] } },
    scope: 'people:read',
    overLimit: 'from the next request',
    quota: 'per item',
  },
  {
    name: 'POST /v1/company/bulk (NDJSON stream)',
    request: {
      method: 'POST',
      url: '/v1/company/bulk',
      headers: NDJSON,
      payload: `${JSON.stringify({ params: { id: COMPANY } })}\n`,
    },
    scope: 'company:read',
    overLimit: 'from the next request',
    // Its headers are sent before its first line is looked up.
    quota: 'per item, without the header',
  },
  {
    name: 'POST /people/search',
    request: { method: 'POST', url: `/people/search?companyId=${COMPANY}` },
    scope: 'people:read',
    overLimit: 'from the next request',
    quota: 'not applied',
  },
  {
    name: 'POST /v1/people/search',
    request: { method: 'POST', url: '/v1/people/search', payload: { q: 'jane' } },
    scope: 'people:read',
    overLimit: 'from the next request',
    quota: 'not applied',
  },
  {
    name: 'POST /v1/company/search',
    request: { method: 'POST', url: '/v1/company/search', payload: { q: 'acme' } },
    scope: 'company:read',
    overLimit: 'from the next request',
    quota: 'not applied',
  },
  // Any live key may read its own usage, and the report says what is left of its quota.
  { name: 'GET /v1/usage', request: { url: '/v1/usage' }, overLimit: 'at once', quota: 'reported' },
  {
    name: 'GET /v1/watchlists',
    request: { url: '/v1/watchlists' },
    scope: 'changes:read',
    overLimit: 'at once',
    quota: 'not applied',
  },
];

/** Scopes no key gets by default: a route that needs one is called by keys given it. */
const NOT_DEFAULT: readonly Scope[] = ['changes:read', 'changes:write', 'admin'];

/** What a refusal is judged by: status, problem code, and the headers a refusal may carry. */
function verdict(res: Awaited<ReturnType<Send>>, method = 'GET') {
  const h = res.headers;
  const json = method !== 'HEAD' && String(h['content-type']).startsWith('application/problem+json');
  return {
    status: res.statusCode,
    code: json ? res.json().code : undefined,
    'www-authenticate': h['www-authenticate'],
    'retry-after': h['retry-after'],
    'ratelimit-policy': h['ratelimit-policy'],
    ratelimit: h.ratelimit,
    'enrich-quota-remaining': h['enrich-quota-remaining'],
    'cache-control': h['cache-control'],
    'x-content-type-options': h['x-content-type-options'],
  };
}

const KEYED = { 'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff' };
const NOT_RATED = { 'retry-after': undefined, 'ratelimit-policy': undefined, ratelimit: undefined };
const NO_QUOTA = { 'enrich-quota-remaining': undefined };
const CHALLENGE = 'Bearer realm="enrich"';
const INVALID_TOKEN = 'Bearer realm="enrich", error="invalid_token"';
const unauthorized = (challenge: string) => ({
  status: 401,
  code: 'unauthorized',
  'www-authenticate': challenge,
  ...NOT_RATED,
  ...NO_QUOTA,
  ...KEYED,
});
/** A 429 for a bucket of `rate` that is empty: one second until it holds a token again. */
const tooMany = (rate: number) => ({
  status: 429,
  code: 'rate_limited',
  'www-authenticate': undefined,
  'retry-after': '1',
  'ratelimit-policy': `"default";q=${rate};w=1`,
  ratelimit: '"default";r=0;t=1',
  ...NO_QUOTA,
  ...KEYED,
});

/** What a route's answer should show: a HEAD's has the same headers and no body to read a code from. */
const seen = (route: KeyedRoute, expected: object) =>
  route.request.method === 'HEAD' ? { ...expected, code: undefined } : expected;

const OVERS: Over[] = ['inject', 'socket'];

describe.each(BACKENDS.flatMap((backend) => OVERS.map((over) => [backend, over] as const)))(
  'every keyed route, on %s through %s',
  (backend, over) => {
    let t: TestApp;
    let send: Send;
    let address = 0;
    beforeAll(async () => {
      // A clock that stands still: a bucket refills only when the test says, so every figure is exact.
      t = await testApp(backend, {
        limiter: new MemoryRateLimiter(() => 0),
        unauthenticatedRate: 1,
        trustProxy: ['loopback'],
      });
      send = await sender(t.app, over);
    });
    afterAll(() => t.close());

    /** The route's request with this authorization, from a client address of its own. */
    const call = (route: KeyedRoute, authorization: string | undefined, from = `192.0.2.${++address}`) => {
      const auth: Record<string, string> = authorization === undefined ? {} : { authorization };
      const headers = { ...route.request.headers, ...auth, 'x-forwarded-for': from };
      return send({ ...route.request, headers });
    };
    /** A key for the route: with its scope when no key has it by default. */
    const keyFor = (route: KeyedRoute, request: Parameters<TestApp['newKey']>[0] = {}) =>
      t.newKey(
        route.scope && NOT_DEFAULT.includes(route.scope) ? { scopes: [route.scope], ...request } : request,
      );
    const judged = async (route: KeyedRoute, authorization: string | undefined, from?: string) =>
      verdict(await call(route, authorization, from), route.request.method);

    describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
      it('answers a live key with the scope', async () => {
        const key = await keyFor(route);
        expect(await judged(route, key.auth)).toMatchObject({ status: 200, ...KEYED });
      });

      it('answers 401 with a Bearer challenge when no token is given', async () => {
        expect(await judged(route, undefined)).toEqual(seen(route, unauthorized(CHALLENGE)));
      });

      it('answers 401 invalid_token to a malformed token', async () => {
        expect(await judged(route, 'Bearer enr_short')).toEqual(seen(route, unauthorized(INVALID_TOKEN)));
      });

      it('answers 401 invalid_token to a revoked key and to an expired one', async () => {
        const revoked = await keyFor(route);
        await t.store.revokeKey(revoked.id, new Date());
        const expired = await keyFor(route, { expiresAt: new Date(Date.now() - 1000) });
        expect(await judged(route, revoked.auth)).toEqual(seen(route, unauthorized(INVALID_TOKEN)));
        expect(await judged(route, expired.auth)).toEqual(seen(route, unauthorized(INVALID_TOKEN)));
      });

      it(`refuses an address over its limit of requests without a valid token (${route.overLimit})`, async () => {
        const from = `198.51.100.${++address}`;
        const statuses = [];
        for (let i = 0; i < 2; i++) statuses.push((await call(route, undefined, from)).statusCode);
        expect(statuses).toEqual(route.overLimit === 'at once' ? [401, 429] : [401, 401]);
        expect(await judged(route, undefined, from)).toEqual(seen(route, tooMany(1)));
      });

      it(route.scope ? 'answers 403 to a key without its scope' : 'needs no scope', async () => {
        const other: Scope = route.scope === 'people:read' ? 'company:read' : 'people:read';
        const key = await t.newKey({ scopes: [other], rate: 10 });
        const rated = { 'ratelimit-policy': '"default";q=10;w=1', ratelimit: '"default";r=9;t=1' };
        if (route.scope === undefined) {
          expect(await judged(route, key.auth)).toMatchObject({ status: 200, ...rated });
          return;
        }
        expect(await judged(route, key.auth)).toEqual(
          seen(route, {
            status: 403,
            code: 'forbidden',
            'www-authenticate': undefined,
            'retry-after': undefined,
            ...rated,
            ...NO_QUOTA,
            ...KEYED,
          }),
        );
      });

      it("answers 429 with Retry-After and RateLimit once the key's bucket is empty", async () => {
        const key = await keyFor(route, { rate: 1 });
        expect((await judged(route, key.auth)).status).toBe(200);
        expect(await judged(route, key.auth)).toEqual(seen(route, tooMany(1)));
      });

      it(`meets a used-up quota: ${route.quota}`, async () => {
        const key = await keyFor(route, { quota: 1 });
        expect((await judged(route, key.auth)).status).toBe(200);
        const res = await call(route, key.auth);
        const second = verdict(res, route.request.method);
        const rated = { 'ratelimit-policy': '"default";q=1000;w=1', ratelimit: '"default";r=998;t=1' };
        expect(second).toMatchObject(rated);
        if (route.quota === 'refused') {
          const refused = { status: 402, code: 'quota_exceeded', 'enrich-quota-remaining': '0' };
          expect(second).toMatchObject(seen(route, refused));
        } else if (route.quota === 'per item') {
          expect(second).toMatchObject({ status: 200, 'enrich-quota-remaining': '0' });
          expect(res.json().results[0].status).toBe('quota_exceeded');
        } else if (route.quota === 'per item, without the header') {
          expect(second).toMatchObject({ status: 200, ...NO_QUOTA });
          expect(JSON.parse(res.body).status).toBe('quota_exceeded');
        } else if (route.quota === 'reported') {
          expect(second).toMatchObject({ status: 200, 'enrich-quota-remaining': '1' });
        } else {
          expect(second).toMatchObject({ status: 200, ...NO_QUOTA });
        }
      });
    });
  },
);
