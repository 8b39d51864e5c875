import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../../src/auth/keys.js';
import { mintToken } from '../../src/auth/tokens.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

describe.each(SETUPS)('on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
  });
  afterAll(() => t.close());

  const lookup = (authorization?: string, url = '/people?id=fp000000000001') =>
    send({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

  describe('authentication', () => {
    it('answers 401 with WWW-Authenticate: Bearer when the header is missing', async () => {
      const res = await lookup();
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json().code).toBe('unauthorized');
    });

    it.each([
      ['a malformed header', 'Basic abc'],
      ['a malformed token', 'Bearer enr_short'],
      ['a token with a bad checksum', `Bearer ${mintToken().slice(0, -1)}0`],
      ['an unknown token', `Bearer ${mintToken()}`],
    ])('answers 401 to %s', async (_what, header) => {
      const res = await lookup(header);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('never accepts a token in the query string', async () => {
      const res = await lookup(undefined, `/people?id=fp000000000001&access_token=${t.token}`);
      expect([400, 401]).toContain(res.statusCode);
      expect(res.body).not.toContain(t.token);
    });

    it('refuses a revoked key on its very next request', async () => {
      const key = await t.newKey();
      expect((await lookup(key.auth)).statusCode).toBe(200);
      await t.store.revokeKey(key.id, new Date());
      const res = await lookup(key.auth);
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(/revoked/);
    });

    it('refuses an expired key, saying it expired', async () => {
      const key = await t.newKey({ expiresAt: new Date(Date.now() + 50) });
      await new Promise((r) => setTimeout(r, 80));
      const res = await lookup(key.auth);
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(/expired/);
    });

    it('accepts a rotated-out token during its grace period only, and the new token throughout', async () => {
      const key = await t.newKey();
      const rotated = await rotateKey(t.store, key.id, 300);
      expect(rotated?.key.id).toBe(key.id);
      const fresh = `Bearer ${rotated!.token}`;
      expect((await lookup(key.auth)).statusCode).toBe(200);
      expect((await lookup(fresh)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 350));
      const late = await lookup(key.auth);
      expect(late.statusCode).toBe(401);
      expect(late.json().detail).toBe('The bearer token was rotated and its grace period has ended.');
      expect((await lookup(fresh)).statusCode).toBe(200);
    });

    it('answers every token rotated out before the last as rotated, even while the last one is in its grace', async () => {
      const key = await t.newKey();
      const second = await rotateKey(t.store, key.id, 60_000);
      const third = await rotateKey(t.store, key.id, 60_000);
      const rotatedTwice = await lookup(key.auth);
      expect(rotatedTwice.statusCode).toBe(401);
      expect(rotatedTwice.json().detail).toBe('The bearer token was rotated and its grace period has ended.');
      expect((await lookup(`Bearer ${second!.token}`)).statusCode).toBe(200);
      expect((await lookup(`Bearer ${third!.token}`)).statusCode).toBe(200);
      await rotateKey(t.store, key.id, 60_000);
      expect((await lookup(`Bearer ${second!.token}`)).json().detail).toMatch(/rotated/);
      await t.store.revokeKey(key.id, new Date());
      expect((await lookup(key.auth)).json().detail).toMatch(/revoked/);
    });

    it('refuses a rotated-out token at once with no grace, and cannot rotate a revoked key', async () => {
      const key = await t.newKey();
      const rotated = await rotateKey(t.store, key.id, 0);
      expect((await lookup(key.auth)).statusCode).toBe(401);
      await t.store.revokeKey(key.id, new Date());
      expect((await lookup(`Bearer ${rotated!.token}`)).json().detail).toMatch(/revoked/);
      expect(await rotateKey(t.store, key.id, 1000)).toBeUndefined();
    });

    it('answers 403 to a key without the scope for the operation', async () => {
      const key = await t.newKey({ scopes: ['company:read'] });
      const res = await lookup(key.auth);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
      expect((await lookup(key.auth, '/company?id=f000000000001')).statusCode).toBe(200);
    });

    it('never puts a token in a response', async () => {
      const res = await lookup(`Bearer ${t.token}x`);
      expect(res.body).not.toContain(t.token);
    });
  });

  describe('rate limits', () => {
    it('carries RateLimit headers on every keyed response', async () => {
      const key = await t.newKey({ rate: 50 });
      const res = await lookup(key.auth, '/people?work_email=nobody@nowhere.com');
      expect(res.statusCode).toBe(404);
      expect(res.headers['ratelimit-policy']).toBe('"default";q=50;w=1');
      expect(res.headers.ratelimit).toMatch(/^"default";r=49;t=\d+$/);
    });

    it('answers 429 with Retry-After once the burst is spent', async () => {
      const key = await t.newKey({ rate: 5 });
      const statuses: number[] = [];
      let last = await lookup(key.auth);
      statuses.push(last.statusCode);
      for (let i = 0; i < 5; i++) {
        last = await lookup(key.auth);
        statuses.push(last.statusCode);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(last.statusCode).toBe(429);
      expect(last.json().code).toBe('rate_limited');
      expect(Number(last.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(last.headers.ratelimit).toMatch(/r=0/);
    });
  });

  describe('quotas', () => {
    it('count only matched lookups, then answer 402 quota_exceeded', async () => {
      const key = await t.newKey({ quota: 2 });
      const miss = await lookup(key.auth, '/people?work_email=nobody@nowhere.com');
      expect(miss.statusCode).toBe(404);
      expect(miss.headers['enrich-quota-remaining']).toBe('2');
      const ambiguous = await lookup(key.auth, '/people?work_email=info@acme.com.au');
      expect(ambiguous.statusCode).toBe(409);
      const bad = await lookup(key.auth, '/people?nope=1');
      expect(bad.statusCode).toBe(400);
      const first = await lookup(key.auth);
      expect(first.statusCode).toBe(200);
      expect(first.headers['enrich-quota-remaining']).toBe('1');
      expect((await lookup(key.auth)).headers['enrich-quota-remaining']).toBe('0');
      const over = await lookup(key.auth);
      expect(over.statusCode).toBe(402);
      expect(over.json().code).toBe('quota_exceeded');
      expect(over.headers['enrich-quota-remaining']).toBe('0');
    });

    it('leave keys without a quota without the header', async () => {
      const res = await lookup(t.auth);
      expect(res.headers['enrich-quota-remaining']).toBeUndefined();
    });
  });
});
