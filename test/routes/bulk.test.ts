// POST /v1/{people,company}/bulk as JSON: every item answered as its single GET, in order, and the whole
// request's problems — shape, size, content type, auth — on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUPS } from '../../src/lookup/operations.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { LOOKUP_CASES } from '../helpers/lookup-cases.js';

type Result = {
  ref?: string;
  status: string;
  matched_by?: string[];
  record?: Record<string, unknown>;
  problem?: Record<string, unknown>;
};

const ITEM_STATUS: Record<number, string> = {
  200: 'matched',
  404: 'not_found',
  409: 'ambiguous',
  400: 'invalid',
};

for (const backend of BACKENDS) {
  describe(`bulk lookups as JSON, on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await testApp(backend);
    });
    afterAll(() => t.close());

    const bulk = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: `/v1${path}/bulk`,
        headers: { authorization: t.auth, 'content-type': 'application/json', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('answers each item exactly as its single GET, record bytes and problem documents alike', async () => {
      for (const operation of LOOKUPS) {
        const cases = LOOKUP_CASES.filter(([op]) => op === operation).map(([, params]) => params);
        const response = await bulk(operation.path, {
          requests: cases.map((params, i) => ({ params, ref: `row-${i}` })),
        });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        const requestId = response.headers['x-request-id'];
        const { results } = response.json() as { results: Result[] };
        expect(results).toHaveLength(cases.length);
        for (const [i, params] of cases.entries()) {
          const query = new URLSearchParams(params as Record<string, string>).toString();
          const get = await t.app.inject({
            url: `/v1${operation.path}?${query}`,
            headers: { authorization: t.auth },
          });
          const result = results[i]!;
          expect(result.ref).toBe(`row-${i}`);
          expect(result.status, query).toBe(ITEM_STATUS[get.statusCode]);
          if (get.statusCode === 200) {
            expect(result.matched_by!.join(', ')).toBe(get.headers['enrich-matched-by']);
            // Spliced as stored: the item's record is the GET's body byte for byte.
            expect(response.body).toContain(`"record":${get.body}}`);
            expect(result.record).toEqual(get.json());
          } else {
            expect(result.problem, query).toEqual({ ...get.json(), request_id: requestId });
          }
        }
      }
    });

    it('keeps request order, echoes refs only where given, and counts every status in the summary', async () => {
      const requests = [
        { params: { id: 'fp000000000003' } },
        { params: { id: 'fp000000000001' }, ref: 'crm-0042' },
        { params: { work_email: 'info@acme.com.au' }, ref: '' },
        { params: { id: 'fp000000000002' }, ref: 'zoë' },
        { params: { work_email: 'nobody@acme.com.au' } },
        { params: { id: 42 }, ref: 'bad' },
      ];
      const response = await bulk('/people', { requests });
      const { results, summary } = response.json() as { results: Result[]; summary: object };
      expect(results.map((r) => r.record?.id ?? r.status)).toEqual([
        'fp000000000003',
        'fp000000000001',
        'ambiguous',
        'fp000000000002',
        'not_found',
        'invalid',
      ]);
      expect(results.map((r) => r.ref)).toEqual([undefined, 'crm-0042', '', 'zoë', undefined, 'bad']);
      expect('ref' in results[0]!).toBe(false);
      expect(results[5]!.problem).toMatchObject({ code: 'invalid_parameter', parameter: 'id', status: 400 });
      expect(summary).toEqual({ matched: 3, not_found: 1, ambiguous: 1, invalid: 1, quota_exceeded: 0 });
    });

    it('projects every record onto the fields asked for, in the body or the query, id always included', async () => {
      const requests = [{ params: { id: 'fp000000000001' } }, { params: { id: 'fp999999999999' } }];
      const inBody = await bulk('/people', { requests, fields: ['name', 'emails.personal'] });
      expect(inBody.statusCode).toBe(200);
      const [found, missing] = (inBody.json() as { results: Result[] }).results;
      expect(found!.record).toEqual({
        id: 'fp000000000001',
        name: 'Jane Citizen',
        emails: { personal: [{ value: 'jane@gmail.com', deliverability: 'Deliverable' }] },
      });
      expect(missing!.status).toBe('not_found');
      const inQuery = await t.app.inject({
        method: 'POST',
        url: '/v1/people/bulk?fields=name',
        headers: { authorization: t.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ requests }),
      });
      expect((inQuery.json() as { results: Result[] }).results[0]!.record).toEqual({
        id: 'fp000000000001',
        name: 'Jane Citizen',
      });
    });

    it('refuses an unknown field, listing the valid ones, and fields given twice', async () => {
      const requests = [{ params: { id: 'fp000000000001' } }];
      const unknown = await bulk('/people', { requests, fields: ['name', 'nmae'] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'fields', field: 'nmae' });
      expect(unknown.json().accepted).toContain('current_company.name');
      const twice = await t.app.inject({
        method: 'POST',
        url: '/v1/people/bulk?fields=name',
        headers: { authorization: t.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ requests, fields: ['name'] }),
      });
      expect(twice.statusCode).toBe(400);
      const other = await t.app.inject({
        method: 'POST',
        url: '/v1/people/bulk?id=fp000000000001',
        headers: { authorization: t.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ requests }),
      });
      expect(other.json()).toMatchObject({ status: 400, code: 'unknown_parameter', accepted: ['fields'] });
    });

    it('answers a body that is not JSON, or not of the bulk shape, with a 400 naming the JSON path', async () => {
      const cases: Array<[string, string]> = [
        ['{"requests": [{"params": {"id": "fp000000000001"}}, {"params": }]}', '$.requests[1].params'],
        ['{"requests": [', '$.requests[0]'],
        ['', '$'],
        ['[]', '$'],
        ['{"requests": {}}', '$.requests'],
        ['{"requests": []}', '$.requests'],
        ['{"requests": [{"params": {"id": "a"}}], "request": 1}', '$["request"]'],
        ['{"requests": [1]}', '$.requests[0]'],
        ['{"requests": [{"params": {"id": "a"}}, {}, {}, {"params": "id=a"}]}', '$.requests[1].params'],
        [
          '{"requests": [{"params": {"id": "a"}}, {"params": {"id": "b"}}, {"params": {"id": "c"}}, {"params": ["id"]}]}',
          '$.requests[3].params',
        ],
        ['{"requests": [{"params": {"id": "a"}, "ref": 7}]}', '$.requests[0].ref'],
        [`{"requests": [{"params": {"id": "a"}, "ref": "${'r'.repeat(257)}"}]}`, '$.requests[0].ref'],
        ['{"requests": [{"params": {"id": "a"}, "id": "a"}]}', '$.requests[0]["id"]'],
        ['{"requests": [{"params": {"id": "a"}}], "fields": "name"}', '$.fields'],
        ['{"requests": [{"params": {"id": "a"}}], "fields": ["name", 3]}', '$.fields[1]'],
      ];
      for (const [body, path] of cases) {
        const response = await bulk('/people', body);
        expect(response.statusCode, body).toBe(400);
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(response.json(), body).toMatchObject({ code: 'invalid_body', status: 400, path });
        expect(response.json().detail).toContain(path);
      }
      const syntax = (
        await bulk('/people', '{"requests": [\n  {"params": {"id": "a"}}\n  {"params": {}}]}')
      ).json();
      expect(syntax).toMatchObject({ path: '$.requests', line: 3, column: 3 });
    });

    it('refuses more than 1,000 items, and a body over 4 MiB, with a 413 saying the limit', async () => {
      const items = (n: number) => Array.from({ length: n }, (_, i) => ({ params: { id: `fp${i}` } }));
      // A key whose bucket the 1,000 items leave well above zero: the next requests meet the size checks,
      // not the rate (1,000 items from a key of 1,000/s would make them wait, rightly).
      const roomy = { authorization: (await t.newKey({ rate: 100_000 })).auth };
      const thousand = await bulk('/people', { requests: items(1000) }, roomy);
      expect(thousand.statusCode).toBe(200);
      expect(thousand.json().summary.not_found).toBe(1000);
      const over = await bulk('/people', { requests: items(1001) }, roomy);
      expect(over.statusCode).toBe(413);
      expect(over.json()).toMatchObject({ code: 'payload_too_large', status: 413, max_items: 1000 });
      const huge = await bulk(
        '/people',
        { requests: [{ params: { id: 'x' }, ref: 'y'.repeat(5 * 1024 * 1024) }] },
        roomy,
      );
      expect(huge.statusCode).toBe(413);
      expect(huge.json()).toMatchObject({
        code: 'payload_too_large',
        max_items: 1000,
        max_bytes: 4 * 1024 * 1024,
      });
    });

    it('refuses other content types and compressed bodies with a 415 naming the accepted types', async () => {
      const payload = JSON.stringify({ requests: [{ params: { id: 'fp000000000001' } }] });
      for (const headers of [
        { 'content-type': 'text/csv' },
        { 'content-type': 'application/x-www-form-urlencoded' },
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      ]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/v1/company/bulk',
          headers: { authorization: t.auth, ...headers },
          payload,
        });
        expect(response.statusCode).toBe(415);
        expect(response.json()).toMatchObject({
          code: 'unsupported_media_type',
          accepted: ['application/json', 'application/x-ndjson'],
        });
      }
      const none = await t.app.inject({
        method: 'POST',
        url: '/v1/company/bulk',
        headers: { authorization: t.auth },
      });
      expect(none.statusCode).toBe(415);
      expect(none.json().detail).toContain('No Content-Type');
    });

    it('answers 401, 403 and 405 for the whole request as the GET does', async () => {
      const body = { requests: [{ params: { id: 'fp000000000001' } }] };
      const anonymous = await bulk('/people', body, { authorization: '' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="enrich"');
      const unknown = await bulk('/people', body, { authorization: `Bearer enr_${'x'.repeat(36)}` });
      expect(unknown.statusCode).toBe(401);
      const companiesOnly = await t.newKey({ scopes: ['company:read'] });
      const forbidden = await bulk('/people', body, { authorization: companiesOnly.auth });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ code: 'forbidden', required_scope: 'people:read' });
      const get = await t.app.inject({ url: '/v1/people/bulk', headers: { authorization: t.auth } });
      expect(get.statusCode).toBe(405);
      expect(get.headers.allow).toBe('POST');
    });

    it('answers 429 with Retry-After when the key has no token left, before reading the items', async () => {
      const slow = await t.newKey({ rate: 1 });
      const body = { requests: [{ params: { id: 'fp000000000001' } }, { params: { id: 'fp000000000002' } }] };
      const first = await bulk('/people', body, { authorization: slow.auth });
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-policy']).toBe('"default";q=1;w=1');
      const second = await bulk('/people', body, { authorization: slow.auth });
      expect(second.statusCode).toBe(429);
      expect(second.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const malformed = await bulk('/people', '{', { authorization: slow.auth });
      expect(malformed.statusCode).toBe(429); // a malformed body is charged a token, as a malformed query is
    });
  });
}
