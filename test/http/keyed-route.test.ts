// A route declared with app.keyedRoute: given the admitted key, charged its cost, met by the quota when it
// says so, validated only once admitted, and documented as taking a bearer token.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JournalWriter } from '../../src/accounting/journal.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { type TestApp, testApp } from '../helpers/app.js';

describe('a keyed route', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A clock that stands still: a bucket refills only when a test says.
    t = await testApp('sqlite', { limiter: new MemoryRateLimiter(() => 0) });
    t.app.keyedRoute(
      { method: 'GET', url: '/v1/test/either', scopes: ['people:read', 'company:read'] },
      async (_request, _reply, { key }) => ({ key: key.id }),
    );
    t.app.keyedRoute({ method: 'POST', url: '/v1/test/costly', scopes: [], cost: 5 }, async () => ({}));
    t.app.keyedRoute(
      { method: 'GET', url: '/v1/test/metered', scopes: [], quota: true },
      async (request, _reply, admitted) => {
        if ((request.query as { find?: string }).find) admitted.matched = ['fp000000000001'];
        return {};
      },
    );
    t.app.keyedRoute(
      {
        method: 'POST',
        url: '/v1/test/validated',
        scopes: [],
        schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) },
      },
      async (request) => request.body,
    );
    t.app.keyedRoute(
      {
        method: 'GET',
        url: '/v1/test/audited',
        scopes: ['people:read'],
        audit: { operation: 'people_search', params: () => ['q'] },
      },
      async (_request, reply, admitted) => {
        admitted.matched = ['fp000000000001'];
        reply.header('enrich-total', '1');
        return { found: 1 };
      },
    );
  });
  afterAll(() => t.close());

  const send = (method: 'GET' | 'POST', url: string, auth?: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: auth === undefined ? {} : { authorization: auth } });

  it('hands its handler the admitted key, for a key holding either of its scopes', async () => {
    const key = await t.newKey({ scopes: ['company:read'] });
    const res = await send('GET', '/v1/test/either', key.auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ key: key.id });
    expect(res.headers['cache-control']).toBe('private, no-store');
    const neither = await send('GET', '/v1/test/either', (await t.newKey({ scopes: [] })).auth);
    expect(neither.json()).toMatchObject({
      code: 'forbidden',
      required_scopes: ['people:read', 'company:read'],
    });
  });

  it('takes its cost from the key’s bucket', async () => {
    const key = await t.newKey({ rate: 10 });
    const res = await send('POST', '/v1/test/costly', key.auth, {});
    expect(res.headers.ratelimit).toBe('"default";r=5;t=1');
  });

  it('counts an answer that discloses records against the quota, saying what is left, then refuses 402', async () => {
    const key = await t.newKey({ quota: 2 });
    const remaining = async (url: string) => {
      const res = await send('GET', url, key.auth);
      return [res.statusCode, res.headers['enrich-quota-remaining']];
    };
    expect(await remaining('/v1/test/metered')).toEqual([200, '2']);
    expect(await remaining('/v1/test/metered?find=1')).toEqual([200, '1']);
    expect(await remaining('/v1/test/metered?find=1')).toEqual([200, '0']);
    expect(await remaining('/v1/test/metered')).toEqual([402, '0']);
  });

  it('validates a request only once it is admitted: a client without a valid token learns nothing of its body', async () => {
    expect((await send('POST', '/v1/test/validated', undefined, { nope: 1 })).statusCode).toBe(401);
    const invalid = await send('POST', '/v1/test/validated', t.auth, { nope: 1 });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().code).toBe('invalid_parameter');
    expect(invalid.headers.ratelimit).toBeDefined();
    expect((await send('POST', '/v1/test/validated', t.auth, { name: 'x' })).json()).toEqual({ name: 'x' });
  });

  it('answers 503 when its audit cannot be written: no answer goes out unrecorded, nor its headers', async () => {
    const refused = await t.newKey({ scopes: ['company:read'], rate: 10 });
    const commit = vi.spyOn(JournalWriter.prototype, 'commit').mockImplementation(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    try {
      const answered = await send('GET', '/v1/test/audited', t.auth);
      expect(answered.statusCode).toBe(503);
      expect(answered.headers['enrich-total']).toBeUndefined();
      expect(answered.headers.ratelimit).toBeDefined();
      expect(answered.json().code).toBe('unavailable');
      const forbidden = await send('GET', '/v1/test/audited', refused.auth);
      expect([forbidden.statusCode, forbidden.headers.ratelimit]).toEqual([503, '"default";r=9;t=1']);
    } finally {
      commit.mockRestore();
    }
    expect((await send('GET', '/v1/test/audited', t.auth)).headers['enrich-total']).toBe('1');
  });

  it("is documented as taking a bearer token or the console's session", async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(document.paths['/v1/test/costly'].post.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(document.paths['/v1/usage'].get.security).toEqual([{ bearer: [] }, { session: [] }]);
  });
});
