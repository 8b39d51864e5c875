// The audit trail of lookups: complete after a burst and a graceful close, names never values.
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { COMPANIES, PEOPLE, seed } from '../helpers/app.js';

let store: Store;
afterEach(() => store.close());

async function appWith() {
  store = openSqliteStore(':memory:');
  await seed(store, 'people', PEOPLE);
  await seed(store, 'companies', COMPANIES);
  const app = await buildApp({ store });
  const { key, token } = await issueKey(store, { name: 'audited', rate: 100_000 });
  return { app, keyId: key.id, auth: `Bearer ${token}` };
}

describe('the audit trail', () => {
  it('is not kept, nor usage metered, with accounting off (a benchmark setting), and lookups still answer', async () => {
    store = openSqliteStore(':memory:');
    await seed(store, 'people', PEOPLE);
    const app = await buildApp({ store, accounting: false });
    const { key, token } = await issueKey(store, { name: 'unaccounted', rate: 100 });
    const res = await app.inject({
      url: '/people?id=fp000000000001',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    await app.close();
    expect(await store.audit({ keyId: key.id })).toEqual([]);
    expect(await store.usage({ keyId: key.id })).toEqual([]);
  });

  it('holds every one of a burst of concurrent lookups after a graceful close', async () => {
    const { app, keyId, auth } = await appWith();
    const urls = ['/people?id=fp000000000001', '/people?work_email=nobody@x.com', '/company?abn=51824753556'];
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, n) =>
        app.inject({ url: urls[n % urls.length]!, headers: { authorization: auth } }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(333);
    await app.close();
    const entries = await store.audit({ keyId });
    expect(entries).toHaveLength(500);
    expect(entries.filter((e) => e.status === 404)).toHaveLength(167);
    expect((await store.audit({ recordId: 'fp000000000001' })).length).toBe(167);
    expect((await store.audit({ recordId: 'f000000000001' })).length).toBe(166);
  });

  it('records time, key, operation, parameter names and the ids each answer disclosed', async () => {
    const { app, keyId, auth } = await appWith();
    const get = (url: string, headers = {}) =>
      app.inject({ url, headers: { authorization: auth, ...headers } });
    const found = await get('/people?work_email=jane.citizen%40acme.com.au&ln_slug=jane-citizen');
    await get('/people?id=fp000000000001', { 'if-none-match': found.headers.etag as string });
    await get('/people?work_email=info%40acme.com.au');
    await get('/people?personal_email=nobody%40nowhere.com');
    await get('/company?abn=123');
    await app.inject({ url: '/people?id=fp000000000001', headers: { authorization: 'Bearer enr_unknown' } });
    await app.close();
    const entries = await store.audit({});
    expect(entries.map(({ at: _, ...e }) => e)).toEqual([
      {
        key_id: keyId,
        operation: 'people',
        params: ['ln_slug', 'work_email'],
        matched: ['fp000000000001'],
        status: 200,
      },
      { key_id: keyId, operation: 'people', params: ['id'], matched: ['fp000000000001'], status: 304 },
      {
        key_id: keyId,
        operation: 'people',
        params: ['work_email'],
        matched: ['fp000000000001', 'fp000000000002'],
        status: 409,
      },
      { key_id: keyId, operation: 'people', params: ['personal_email'], matched: [], status: 404 },
      { key_id: keyId, operation: 'company', params: ['abn'], matched: [], status: 400 },
    ]);
    expect(Date.now() - Date.parse(entries[0]!.at)).toBeLessThan(60_000);
    // An entry's time and key id change from run to run (a time of .123 s matched once): the rest must hold no value.
    const disclosed = entries.map(({ at: _, key_id: __, ...e }) => e);
    expect(JSON.stringify(disclosed)).not.toMatch(/acme|nobody|jane-citizen|123/);
  });

  it('records a refused lookup of a known key, but not one whose key is unknown', async () => {
    const { app, keyId } = await appWith();
    const { key, token } = await issueKey(store, { name: 'companies only', scopes: ['company:read'] });
    await app.inject({ url: '/people?id=fp000000000001', headers: { authorization: `Bearer ${token}` } });
    await app.close();
    expect((await store.audit({ keyId: key.id })).map((e) => e.status)).toEqual([403]);
    expect(await store.audit({ keyId })).toEqual([]);
  });
});
