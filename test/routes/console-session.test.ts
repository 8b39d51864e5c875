// /console/session on both stores: a token exchanged for an HttpOnly cookie that stands for its key on every
// keyed route, an Origin required of what changes anything, 12 hours' idle expiry, sign-out and revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionId } from '../../src/auth/sessions.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';

const HOST = 'console.test';
const ORIGIN = `http://${HOST}`;

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  let admin: { auth: string; id: string; token: string };
  beforeAll(async () => {
    t = await testApp(backend);
    admin = await t.newKey({ name: 'ops', scopes: ['admin', 'people:read'] });
  });
  afterAll(() => t.close());

  const signIn = (token: string, headers: Record<string, string> = { origin: ORIGIN }) =>
    t.app.inject({
      method: 'POST',
      url: '/console/session',
      headers: { host: HOST, ...headers },
      payload: { token },
    });
  /** Signs in and returns the Cookie header that carries the session, and the session's id. */
  const session = async (token = admin.token) => {
    const res = await signIn(token);
    expect(res.statusCode, res.body).toBe(201);
    const id = /enrich_session=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
    return { cookie: `enrich_session=${id}`, id };
  };
  const withCookie = (
    cookie: string,
    method: string,
    url: string,
    more: Record<string, string> = {},
    payload?: object,
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { host: HOST, cookie, ...more },
      ...(payload === undefined ? {} : { payload }),
    });

  it('answers a sign-in with the key and an HttpOnly, SameSite=Strict cookie of 12 hours, never the token', async () => {
    const res = await signIn(admin.token);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      key: { id: admin.id, name: 'ops', scopes: ['admin', 'people:read'], expires_at: null },
    });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^enrich_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Max-Age=43200');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure'); // plain HTTP here: a Secure cookie would never come back
    expect(cookie).not.toContain(admin.token);
    expect(res.body).not.toContain(admin.token);
  });

  it('marks the cookie Secure when the console is reached over HTTPS', async () => {
    const https = await testApp('sqlite', { trustProxy: ['127.0.0.1'] });
    try {
      const res = await https.app.inject({
        method: 'POST',
        url: '/console/session',
        headers: { host: HOST, origin: `https://${HOST}`, 'x-forwarded-proto': 'https' },
        payload: { token: https.token },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure$/);
    } finally {
      await https.close();
    }
  });

  it('stores only a hash of the session id', async () => {
    const { id } = await session();
    expect(await t.store.findSession(hashSessionId(id))).toMatchObject({ key_id: admin.id });
    expect(await t.store.findSession(id)).toBeUndefined();
  });

  it('refuses a sign-in with an unknown, malformed or missing token, or from another origin', async () => {
    expect((await signIn('enr_nope')).statusCode).toBe(401);
    const { token } = await t.newKey();
    // Its last character changed (to one it is not).
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    expect((await signIn(wrong)).statusCode).toBe(401);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      headers: { host: HOST, origin: ORIGIN },
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    const elsewhere = await signIn(admin.token, { origin: 'https://evil.example' });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json().code).toBe('origin_mismatch');
    expect((await signIn(admin.token, {})).statusCode).toBe(403);
  });

  it('lets the cookie stand for the key: who it is, admin routes, lookups', async () => {
    const { cookie } = await session();
    const me = await withCookie(cookie, 'GET', '/console/session');
    expect(me.statusCode).toBe(200);
    expect(me.json().key.id).toBe(admin.id);
    expect((await withCookie(cookie, 'GET', '/v1/admin/keys')).statusCode).toBe(200);
    const lookup = await withCookie(cookie, 'GET', '/people?work_email=jane.citizen@acme.com.au');
    expect(lookup.statusCode).toBe(200);
    expect(lookup.json().id).toBe('fp000000000001');
  });

  it("gives a session only its key's scopes", async () => {
    const reader = await t.newKey({ scopes: ['people:read'] });
    const { cookie } = await session(reader.token);
    expect((await withCookie(cookie, 'GET', '/v1/admin/keys')).statusCode).toBe(403);
  });

  it('refuses a state-changing call without this server as its Origin, and takes one with it', async () => {
    const { cookie } = await session();
    const create = (more: Record<string, string>) =>
      withCookie(cookie, 'POST', '/v1/admin/keys', more, { name: 'made in the console' });
    const none = await create({});
    expect(none.statusCode).toBe(403);
    expect(none.json().code).toBe('origin_mismatch');
    expect((await create({ origin: 'http://other.test' })).statusCode).toBe(403);
    expect((await create({ origin: ORIGIN })).statusCode).toBe(201);
  });

  it('leaves bearer requests as they were: no Origin asked, the cookie not read', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/keys',
      headers: { authorization: admin.auth, cookie: 'enrich_session=garbage' },
      payload: { name: 'by script' },
    });
    expect(res.statusCode).toBe(201);
  });

  it('ends the session on the server at sign-out, and clears the cookie', async () => {
    const { cookie, id } = await session();
    const out = await withCookie(cookie, 'DELETE', '/console/session', { origin: ORIGIN });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^enrich_session=; Max-Age=0/);
    expect(await t.store.findSession(hashSessionId(id))).toBeUndefined();
    const after = await withCookie(cookie, 'GET', '/console/session');
    expect(after.statusCode).toBe(401);
    expect(after.json().detail).toMatch(/session has ended/);
  });

  it('ends a session unused for 12 hours', async () => {
    const { cookie, id } = await session();
    await t.store.touchSession(hashSessionId(id), new Date(Date.now() - 12 * 3600_000 - 1000));
    expect((await withCookie(cookie, 'GET', '/console/session')).statusCode).toBe(401);
  });

  it('keeps a session used within 12 hours, and counts its idle time from its last use', async () => {
    const { cookie, id } = await session();
    await t.store.touchSession(hashSessionId(id), new Date(Date.now() - 11 * 3600_000));
    expect((await withCookie(cookie, 'GET', '/console/session')).statusCode).toBe(200);
    await expect
      .poll(async () => (await t.store.findSession(hashSessionId(id)))?.last_seen_at)
      .toMatch(new RegExp(`^${new Date().toISOString().slice(0, 13)}`));
  });

  it('stops working once its key is revoked', async () => {
    const key = await t.newKey({ scopes: ['admin'] });
    const { cookie } = await session(key.token);
    expect((await withCookie(cookie, 'GET', '/v1/admin/stats')).statusCode).toBe(200);
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/keys/${key.id}/revoke`,
      headers: { authorization: admin.auth },
    });
    expect(revoked.statusCode).toBe(200);
    const after = await withCookie(cookie, 'GET', '/v1/admin/stats');
    expect(after.statusCode).toBe(401);
    expect(after.json().detail).toMatch(/revoked/);
  });
});
