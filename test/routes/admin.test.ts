// /v1/admin/… on both stores: only an admin key gets in; keys as `enrich keys` manages them (a token shown
// once), usage series, audit by any identifier (and as CSV), suppressions, stats.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';

/** Every admin route, with a request it takes. */
const ADMIN_ROUTES: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }> = [
  { method: 'GET', url: '/v1/admin/keys' },
  { method: 'POST', url: '/v1/admin/keys', payload: { name: 'x' } },
  { method: 'GET', url: '/v1/admin/keys/key_unknown' },
  { method: 'PATCH', url: '/v1/admin/keys/key_unknown', payload: { rate: 5 } },
  { method: 'POST', url: '/v1/admin/keys/key_unknown/rotate', payload: {} },
  { method: 'POST', url: '/v1/admin/keys/key_unknown/revoke' },
  { method: 'GET', url: '/v1/admin/usage' },
  { method: 'GET', url: '/v1/admin/audit?person=fp000000000001' },
  { method: 'GET', url: '/v1/admin/suppressions' },
  { method: 'POST', url: '/v1/admin/suppressions', payload: { entity: 'people', id: 'fp000000000003' } },
  { method: 'DELETE', url: '/v1/admin/suppressions?entity=people&id=fp000000000003' },
  { method: 'GET', url: '/v1/admin/stats' },
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every property name in a JSON document, however deep (a random key id may hold "hash"; a name may not). */
const namesIn = (value: unknown): string[] =>
  typeof value !== 'object' || value === null
    ? []
    : Object.entries(value).flatMap(([name, inner]) => [name, ...namesIn(inner)]);

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await testApp(backend);
    admin = (await t.newKey({ name: 'ops', scopes: ['admin'] })).auth;
  });
  afterAll(() => t.close());

  const call = (auth: string | undefined, method: string, url: string, payload?: object, more = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      ...(payload === undefined ? {} : { payload }),
      headers: { ...(auth === undefined ? {} : { authorization: auth }), ...more },
    });
  const ok = async (method: string, url: string, payload?: object) => {
    const res = await call(admin, method, url, payload);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  describe.each(ADMIN_ROUTES)('$method $url', ({ method, url, payload }) => {
    it('is refused 403 to a key without the admin scope, and 401 without a token', async () => {
      const refused = await call(t.auth, method, url, payload);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'forbidden', required_scope: 'admin' });
      expect((await call(undefined, method, url, payload)).statusCode).toBe(401);
    });
  });

  describe('keys', () => {
    it('creates a key whose token is in that answer only, never a hash', async () => {
      const created = await ok('POST', '/v1/admin/keys', {
        name: 'crm',
        scopes: ['people:read'],
        rate: 10,
        quota: 100,
      });
      expect(created).toMatchObject({
        name: 'crm',
        scopes: ['people:read'],
        rate: 10,
        quota: 100,
        state: 'active',
      });
      expect(created.token).toMatch(/^enr_/);
      const lookup = await call(`Bearer ${created.token}`, 'GET', '/people?id=fp000000000001');
      expect(lookup.statusCode).toBe(200);
      const shown = await call(admin, 'GET', `/v1/admin/keys/${created.id}`);
      const listed = await call(admin, 'GET', '/v1/admin/keys');
      for (const res of [shown, listed]) {
        expect(res.statusCode).toBe(200);
        expect(res.body).not.toContain(created.token);
        expect(res.body).not.toContain(sha256(created.token));
        expect(namesIn(res.json()).filter((name) => name.includes('hash'))).toEqual([]);
      }
      expect(shown.json()).toMatchObject({ id: created.id, quota_used: 1, quota_remaining: 99 });
      expect(shown.json().usage.totals).toMatchObject({ requests: 1, matched: 1 });
      expect(shown.json()).not.toHaveProperty('token');
      expect(listed.json().keys.map((k: { id: string }) => k.id)).toContain(created.id);
    });

    it('changes settings, rotates with a grace period, and revokes: the token then answers 401', async () => {
      const { id, token } = await ok('POST', '/v1/admin/keys', { name: 'partner' });
      const changed = await ok('PATCH', `/v1/admin/keys/${id}`, {
        rate: 7,
        quota: null,
        name: 'Partner sync',
      });
      expect(changed).toMatchObject({ rate: 7, quota: null, name: 'Partner sync' });
      const rotated = await ok('POST', `/v1/admin/keys/${id}/rotate`, { grace: '1h' });
      expect(rotated.token).not.toBe(token);
      expect(rotated.previous_token_expires_at).not.toBeNull();
      expect((await call(`Bearer ${token}`, 'GET', '/people?id=fp000000000001')).statusCode).toBe(200);
      const revoked = await ok('POST', `/v1/admin/keys/${id}/revoke`);
      expect(revoked.state).toBe('revoked');
      expect((await call(`Bearer ${rotated.token}`, 'GET', '/people?id=fp000000000001')).statusCode).toBe(
        401,
      );
      const again = await call(admin, 'PATCH', `/v1/admin/keys/${id}`, { rate: 9 });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('key_revoked');
    });

    it('answers 404 for an unknown id and 400 naming a bad member', async () => {
      expect((await call(admin, 'GET', '/v1/admin/keys/key_nope')).json().code).toBe('not_found');
      const bad = await call(admin, 'POST', '/v1/admin/keys', { name: 'x', rate: 0 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'invalid_body', parameter: 'rate' });
      const scopes = await call(admin, 'POST', '/v1/admin/keys', { name: 'x', scopes: ['root'] });
      expect(scopes.json()).toMatchObject({ code: 'invalid_body', parameter: 'scopes' });
      const unknown = await call(admin, 'PATCH', `/v1/admin/keys/${t.keyId}`, { colour: 'red' });
      expect(unknown.json()).toMatchObject({ code: 'invalid_body', parameter: 'colour' });
      const blank = await call(admin, 'POST', '/v1/admin/keys', { name: ' \t' });
      expect(blank.json()).toMatchObject({ code: 'invalid_body', parameter: 'name' });
      // 200 characters, counted as the document's maxLength counts them: each emoji is one (two UTF-16 units).
      expect((await call(admin, 'POST', '/v1/admin/keys', { name: '🦘'.repeat(200) })).statusCode).toBe(201);
      const long = await call(admin, 'POST', `/v1/admin/keys/${t.keyId}/rotate`, { grace: '366d' });
      expect(long.json()).toMatchObject({ code: 'invalid_body', parameter: 'grace' });
    });

    it('answers 404 for an audit of an unknown key', async () => {
      const res = await call(admin, 'GET', '/v1/admin/audit?key=key_nope');
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    });
  });

  describe('usage', () => {
    it('gives series per key and operation by day, and by hour and minute with latency', async () => {
      const key = await t.newKey();
      for (const url of [
        '/people?id=fp000000000001',
        '/people?id=fp000000000001',
        '/people?id=nobody',
        '/company?abn=1',
      ]) {
        await call(key.auth, 'GET', url);
      }
      const counts = { requests: 3, matched: 2, not_found: 1, ambiguous: 0, rejected: 0 };
      const day = await ok('GET', `/v1/admin/usage?key=${key.id}`);
      expect(day.granularity).toBe('day');
      expect(day.series.map((s: { operation: string }) => s.operation)).toEqual(['company', 'people']);
      expect(day.series[1]).toMatchObject({ key_id: key.id, points: [counts] });
      expect(day.series[1].points[0].at).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
      for (const granularity of ['hour', 'minute']) {
        const series = await ok('GET', `/v1/admin/usage?key=${key.id}&granularity=${granularity}`);
        const people = series.series.find((s: { operation: string }) => s.operation === 'people');
        const total = people.points.reduce((sum: number, p: { requests: number }) => sum + p.requests, 0);
        expect(total).toBe(3);
        expect(people.points[0].p50_ms).toBeGreaterThan(0);
        expect(people.points[0].p99_ms).toBeGreaterThanOrEqual(people.points[0].p50_ms);
      }
    });

    it('refuses a granularity it does not know and a range backwards', async () => {
      const res = await call(admin, 'GET', '/v1/admin/usage?granularity=week');
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'granularity' });
      const backwards = await call(admin, 'GET', '/v1/admin/usage?from=2026-02-01&to=2026-01-01');
      expect(backwards.statusCode).toBe(400);
      expect((await call(admin, 'GET', '/v1/admin/usage?since=1')).json().code).toBe('unknown_parameter');
    });
  });

  describe('audit', () => {
    it('finds the lookups of a person by each of their identifiers, as a lookup resolves it', async () => {
      const key = await t.newKey({ name: 'auditor' });
      await call(key.auth, 'GET', '/people?ln_slug=jane-citizen');
      const identifiers = [
        'fp000000000001',
        'https://www.linkedin.com/in/jane-citizen',
        'au.linkedin.com/in/jane-citizen/',
        'jane-citizen',
        ' Jane.Citizen@ACME.com.au',
        'jane@gmail.com',
        sha256('jane.citizen@acme.com.au'),
      ];
      for (const person of identifiers) {
        const page = await ok('GET', `/v1/admin/audit?person=${encodeURIComponent(person)}&key=${key.id}`);
        expect(page.record_ids, person).toContain('fp000000000001');
        expect(page.entries, person).toEqual([
          expect.objectContaining({ key_id: key.id, key_name: 'auditor', params: ['ln_slug'], status: 200 }),
        ]);
      }
      const shared = await ok('GET', '/v1/admin/audit?person=info%40acme.com.au');
      expect(shared.record_ids).toEqual(['fp000000000001', 'fp000000000002']);
    });

    it('finds the lookups of a company by each of its identifiers', async () => {
      const key = await t.newKey({ name: 'company auditor' });
      await call(key.auth, 'GET', '/company?abn=51824753556');
      for (const company of [
        'f000000000001',
        'acme.com.au',
        'https://shop.acme.com.au/about',
        '51 824 753 556',
        'acme-holdings',
      ]) {
        const page = await ok('GET', `/v1/admin/audit?company=${encodeURIComponent(company)}&key=${key.id}`);
        expect(
          page.entries.map((e: { matched: string[] }) => e.matched),
          company,
        ).toEqual([['f000000000001']]);
      }
    });

    it("pages a key's lookups by after, and answers CSV with formulas neutralised", async () => {
      const key = await t.newKey({ name: '=HYPERLINK("http://x")' });
      for (let i = 0; i < 3; i++) await call(key.auth, 'GET', '/people?id=fp000000000003');
      const first = await call(admin, 'GET', `/v1/admin/audit?key=${key.id}&limit=2`);
      const page = first.json();
      expect(page.entries).toHaveLength(2);
      expect(first.headers['enrich-next-after']).toBe(page.next_after);
      const rest = await ok('GET', `/v1/admin/audit?key=${key.id}&limit=2&after=${page.next_after}`);
      expect(rest.entries).toHaveLength(1);
      expect(rest.next_after).toBeNull();
      const csv = await call(admin, 'GET', `/v1/admin/audit?key=${key.id}`, undefined, {
        accept: 'text/csv',
      });
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      const lines = csv.body.trim().split('\r\n');
      expect(lines[0]).toBe('at,key_id,key_name,operation,status,params,matched');
      expect(lines).toHaveLength(4);
      expect(lines[1]).toContain(`,"'=HYPERLINK(""http://x"")",people,200,id,fp000000000003`);
    });

    it('asks for a person, a company or a key, and a cursor it gave', async () => {
      expect((await call(admin, 'GET', '/v1/admin/audit')).json().code).toBe('missing_filter');
      const bad = await call(admin, 'GET', `/v1/admin/audit?key=${t.keyId}&after=nonsense`);
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('stats and suppressions', () => {
    it('counts records per entity and the store size', async () => {
      const stats = await ok('GET', '/v1/admin/stats');
      expect(stats).toMatchObject({
        records: { people: 3, companies: 2 },
        last_import: null,
        deliveries: null,
      });
      expect(stats.store_bytes).toBeGreaterThan(0);
    });

    it('shows what a suppression would delete, deletes it, says it is suppressed, and lifts it', async () => {
      const body = { entity: 'people', work_email: 'JOSE@acme.com.au' };
      const dry = await ok('POST', '/v1/admin/suppressions', { ...body, dry_run: true });
      expect(dry).toMatchObject({
        dry_run: true,
        suppressed: [{ parameter: 'work_email', record_ids: ['fp000000000002'] }],
      });
      expect((await call(t.auth, 'GET', '/people?id=fp000000000002')).statusCode).toBe(200);
      const done = await ok('POST', '/v1/admin/suppressions', body);
      expect(done.suppressed[0].record_ids).toEqual(['fp000000000002']);
      expect(done.suppressed[0].hashes).toBeGreaterThan(1);
      expect((await call(t.auth, 'GET', '/people?id=fp000000000002')).statusCode).toBe(404);
      const query = 'entity=people&work_email=jose%40acme.com.au';
      expect((await ok('GET', `/v1/admin/suppressions?${query}`)).identifiers).toEqual([
        { parameter: 'work_email', suppressed: true },
      ]);
      expect((await ok('GET', '/v1/admin/suppressions')).hashes.people).toBeGreaterThan(1);
      const lifted = await ok('DELETE', `/v1/admin/suppressions?${query}`);
      expect(lifted.unsuppressed[0].hashes_removed).toBeGreaterThan(1);
      expect((await ok('GET', `/v1/admin/suppressions?${query}`)).identifiers[0].suppressed).toBe(false);
      const wrong = await call(admin, 'POST', '/v1/admin/suppressions', {
        entity: 'people',
        abn: '51824753556',
      });
      expect(wrong.json()).toMatchObject({ code: 'invalid_body', parameter: 'abn' });
    });
  });
});
