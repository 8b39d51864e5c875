// A bulk is accounted by item: each item charged to the key's rate, counted against its quota when it matches,
// audited with the ids it disclosed and metered as a single lookup of its operation — on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';

type Result = { status: string; record?: { id: string }; problem?: Record<string, unknown> };

for (const backend of BACKENDS) {
  describe(`bulk accounting by item, on ${backend}`, () => {
    let t: TestApp;
    // The buckets' clock stands still unless a test moves it: refills are exact whatever the machine's speed.
    const now = Date.now();
    beforeAll(async () => {
      t = await testApp(backend, { limiter: new MemoryRateLimiter(() => now) });
    });
    afterAll(() => t.close());

    const bulk = (auth: string, requests: unknown[], path = '/people') =>
      t.app.inject({
        method: 'POST',
        url: `/v1${path}/bulk`,
        headers: { authorization: auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ requests }),
      });
    const ids = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ params: { id: `fp00000000000${(i % 3) + 1}` } }));
    /** The key's usage, folded first: what the audit log and meter hold now. */
    const usage = async (auth: string) =>
      (await t.app.inject({ url: '/v1/usage', headers: { authorization: auth } })).json();

    it('charges each item to the rate: a bulk of 30 on a key of 10/s is admitted, and the next waits out the debt', async () => {
      const key = await t.newKey({ rate: 10 });
      const first = await bulk(key.auth, ids(30));
      expect(first.statusCode).toBe(200);
      expect(first.headers.ratelimit).toBe('"default";r=0;t=3');
      const next = await bulk(key.auth, ids(1));
      expect(next.statusCode).toBe(429);
      // 10 - 30 tokens: a whole one is back after 2.1 s.
      expect(next.headers['retry-after']).toBe('3');
      const get = await t.app.inject({
        url: '/v1/people?id=fp000000000001',
        headers: { authorization: key.auth },
      });
      expect(get.statusCode).toBe(429);
    });

    it("serves items up to the monthly quota and answers the rest with the GET's 402, counting only matches", async () => {
      const key = await t.newKey({ quota: 5 });
      const requests = [
        { params: { id: 'fp999999999999' } }, // not found: uses none of the quota
        ...ids(8),
        { params: { id: 'not an id' } }, // invalid: a 400 whatever the quota, as the GET parses first
      ];
      const response = await bulk(key.auth, requests);
      expect(response.statusCode).toBe(200);
      expect(response.headers['enrich-quota-remaining']).toBe('0');
      const { results, summary } = response.json() as { results: Result[]; summary: object };
      expect(results.map((r) => r.status)).toEqual([
        'not_found',
        ...Array(5).fill('matched'),
        ...Array(3).fill('quota_exceeded'),
        'invalid',
      ]);
      expect(summary).toEqual({ matched: 5, not_found: 1, ambiguous: 0, invalid: 1, quota_exceeded: 3 });
      const get = await t.app.inject({
        url: '/v1/people?id=fp000000000001',
        headers: { authorization: key.auth },
      });
      expect(get.statusCode).toBe(402);
      expect(results[6]!.problem).toEqual({ ...get.json(), request_id: response.headers['x-request-id'] });
      const report = await usage(key.auth);
      expect(report.quota_remaining).toBe(0);
      // The GET's 402 counted too: one more rejected request.
      expect(report.totals).toEqual({ requests: 11, matched: 5, not_found: 1, ambiguous: 0, rejected: 5 });
    });

    it('audits every item as a single lookup: parameter names, the ids it disclosed, and its status', async () => {
      const key = await t.newKey();
      await bulk(key.auth, [
        { params: { id: 'fp000000000002' }, ref: 'a' },
        { params: { work_email: 'info@acme.com.au', ln_slug: 'nobody' } },
        { params: { personal_email: 'none@nowhere.com' } },
        { params: { fqdn: 'acme.com.au' } },
      ]);
      await bulk(key.auth, [{ params: { abn: '51 824 753 556' } }], '/company');
      await usage(key.auth);
      const entries = await t.store.audit({ keyId: key.id });
      expect(
        entries.map(({ operation, params, matched, status }) => ({ operation, params, matched, status })),
      ).toEqual([
        { operation: 'people', params: ['id'], matched: ['fp000000000002'], status: 200 },
        {
          operation: 'people',
          params: ['ln_slug', 'work_email'],
          matched: ['fp000000000001', 'fp000000000002'],
          status: 409,
        },
        { operation: 'people', params: ['personal_email'], matched: [], status: 404 },
        { operation: 'people', params: [], matched: [], status: 400 },
        { operation: 'company', params: ['abn'], matched: ['f000000000001'], status: 200 },
      ]);
      expect((await t.store.audit({ recordId: 'fp000000000002', keyId: key.id })).length).toBe(2);
    });

    it('meters every item like a single lookup, and a refused bulk as one refused request', async () => {
      const key = await t.newKey({ scopes: ['people:read'] });
      await bulk(key.auth, [
        ...ids(3),
        { params: { id: 'fp999999999999' } },
        { params: { work_email: 'info@acme.com.au' } },
      ]);
      await bulk(key.auth, ids(2), '/company'); // 403: the key lacks company:read
      await bulk(key.auth, [{ params: 'x' }]); // 400: not of the bulk shape
      const report = await usage(key.auth);
      const byOperation = Object.fromEntries(
        (report.days as Array<Record<string, unknown>>).map(({ operation, day: _, ...counts }) => [
          operation,
          counts,
        ]),
      );
      expect(byOperation).toEqual({
        people: { requests: 6, matched: 3, not_found: 1, ambiguous: 1, rejected: 1 },
        company: { requests: 1, matched: 0, not_found: 0, ambiguous: 0, rejected: 1 },
      });
    });

    it('counts each item in the lookup metrics by outcome', async () => {
      const key = await t.newKey();
      const before = await t.app.inject({ url: '/metrics' });
      await bulk(key.auth, [...ids(2), { params: { id: 'fp999999999999' } }]);
      const after = await t.app.inject({ url: '/metrics' });
      const count = (text: string, outcome: string) =>
        Number(
          new RegExp(`enrich_lookups_total\\{entity="people",outcome="${outcome}"\\} (\\d+)`).exec(
            text,
          )?.[1] ?? 0,
        );
      expect(count(after.body, 'matched') - count(before.body, 'matched')).toBe(2);
      expect(count(after.body, 'not_found') - count(before.body, 'not_found')).toBe(1);
    });
  });
}
