// GET /v1/usage: a key's own usage, matching the requests it actually made, outcome by outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(backend);
  });
  afterAll(() => t.close());

  const get = (auth: string, url: string) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: auth } });
  const usage = async (auth: string) => {
    const res = await get(auth, '/v1/usage');
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  describe('GET /v1/usage', () => {
    it('counts every request by outcome as soon as it is made, per operation', async () => {
      const key = await t.newKey({ scopes: ['people:read'] });
      const statuses = [];
      for (const url of [
        '/people?id=fp000000000001',
        '/v1/people?ln_slug=jane-citizen',
        '/people?work_email=nobody@nowhere.com',
        '/people?work_email=info@acme.com.au',
        '/people?nope=1',
        '/company?id=f000000000001',
      ]) {
        statuses.push((await get(key.auth, url)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 404, 409, 400, 403]);
      const body = await usage(key.auth);
      const today = new Date().toISOString().slice(0, 10);
      expect(body).toMatchObject({
        key_id: key.id,
        period: today.slice(0, 7),
        quota: null,
        quota_remaining: null,
        totals: { requests: 6, matched: 2, not_found: 1, ambiguous: 1, rejected: 2 },
      });
      expect(body.days).toEqual([
        {
          day: today,
          operation: 'company',
          requests: 1,
          matched: 0,
          not_found: 0,
          ambiguous: 0,
          rejected: 1,
        },
        { day: today, operation: 'people', requests: 5, matched: 2, not_found: 1, ambiguous: 1, rejected: 1 },
      ]);
    });

    it('agrees with what the store holds once the meter has flushed', async () => {
      const key = await t.newKey();
      await get(key.auth, '/people?id=fp000000000001');
      const before = await usage(key.auth);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await usage(key.auth)).toEqual(before);
      const stored = await t.store.usage({ keyId: key.id });
      expect(stored.map((r) => r.matched)).toEqual([1]);
    });

    it('counts refusals of a known key as rejected: rate limited, over quota, expired', async () => {
      const limited = await t.newKey({ rate: 1 });
      expect((await get(limited.auth, '/people?id=fp000000000001')).statusCode).toBe(200);
      expect((await get(limited.auth, '/people?id=fp000000000001')).statusCode).toBe(429);
      await new Promise((r) => setTimeout(r, 1000));
      expect((await usage(limited.auth)).totals).toMatchObject({ requests: 2, matched: 1, rejected: 1 });

      const metered = await t.newKey({ quota: 1 });
      expect((await get(metered.auth, '/people?id=fp000000000001')).statusCode).toBe(200);
      expect((await get(metered.auth, '/people?id=fp000000000001')).statusCode).toBe(402);
      const res = await get(metered.auth, '/v1/usage');
      expect(res.headers['enrich-quota-remaining']).toBe('0');
      expect(res.json()).toMatchObject({
        quota: 1,
        quota_remaining: 0,
        totals: { requests: 2, matched: 1, rejected: 1 },
      });

      const expiring = await t.newKey({ expiresAt: new Date(Date.now() + 100) });
      await new Promise((r) => setTimeout(r, 150));
      expect((await get(expiring.auth, '/people?id=fp000000000001')).statusCode).toBe(401);
      expect(
        (await t.app.inject({ url: '/v1/usage', headers: { authorization: expiring.auth } })).statusCode,
      ).toBe(401);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await t.store.usage({ keyId: expiring.id })).toMatchObject([{ requests: 1, rejected: 1 }]);
    });

    it('shows a key its own usage only, and carries the RateLimit headers', async () => {
      const mine = await t.newKey();
      const theirs = await t.newKey();
      await get(theirs.auth, '/people?id=fp000000000001');
      const res = await get(mine.auth, '/v1/usage');
      expect(res.json().totals.requests).toBe(0);
      expect(res.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    });

    it('needs a token', async () => {
      const res = await t.app.inject('/v1/usage');
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('is described in the OpenAPI document', async () => {
      const doc = (await t.app.inject('/openapi.json')).json();
      const op = doc.paths['/v1/usage'].get;
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '429']));
      expect(op.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Usage',
      });
      expect(doc.components.schemas.Usage.properties.totals).toBeDefined();
    });
  });
});
