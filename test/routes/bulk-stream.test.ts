// The bulk stream over a real connection: one result line per input line in order, bad lines answered as
// such, paced at the key's rate, and a client that goes away stops the work — on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { itemLines, postStream } from '../helpers/ndjson.js';

const PEOPLE_IDS = ['fp000000000001', 'fp000000000002', 'fp000000000003'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of BACKENDS) {
  describe(`bulk lookups as an NDJSON stream, on ${backend}`, () => {
    let t: TestApp;
    let origin: string;
    beforeAll(async () => {
      t = await testApp(backend);
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(() => t.close());

    const auditCount = async (keyId: string) => {
      await t.app.inject({ url: '/v1/usage', headers: { authorization: t.auth } }); // folds the journal
      return (await t.store.audit({ keyId })).length;
    };

    it('answers each line in order, as the JSON bulk answers the same items', async () => {
      const items = [
        { params: { id: 'fp000000000002' }, ref: 'a' },
        { params: { work_email: 'info@acme.com.au' } },
        { params: { id: 'fp999999999999' }, ref: 'c' },
        { params: { id: 'fp000000000001' }, ref: 'd' },
        { params: { id: 7 }, ref: 'e' },
      ];
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        t.auth,
        items.map((item) => JSON.stringify(item)),
      );
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(stream.headers['ratelimit-policy']).toBe('"default";q=1000;w=1');
      const json = await t.app.inject({
        method: 'POST',
        url: '/v1/people/bulk',
        headers: { authorization: t.auth, 'content-type': 'application/json', 'x-request-id': 'same-id' },
        payload: JSON.stringify({ requests: items }),
      });
      const withId = (result: Record<string, unknown>) =>
        result.problem
          ? { ...result, problem: { ...(result.problem as object), request_id: 'same-id' } }
          : result;
      expect(stream.results.map(withId)).toEqual(json.json().results);
    });

    it('skips blank lines and answers a bad line with an invalid result naming it, the rest served', async () => {
      const lines = [
        JSON.stringify({ params: { id: 'fp000000000001' }, ref: 'first' }),
        '',
        '   \r',
        '{"params": {"id": "fp000000000002"}, "ref": "broken"',
        JSON.stringify({ params: 'id=fp000000000002', ref: 'shape' }),
        JSON.stringify({ params: { id: 'x' }, ref: 'x'.repeat(70 * 1024) }),
        `${JSON.stringify({ params: { id: 'fp000000000003' }, ref: 'last' })}\r`,
      ];
      const stream = await postStream(`${origin}/v1/people/bulk`, t.auth, lines);
      expect(stream.results.map((r) => [r.ref, r.status])).toEqual([
        ['first', 'matched'],
        [undefined, 'invalid'],
        ['shape', 'invalid'],
        [undefined, 'invalid'],
        ['last', 'matched'],
      ]);
      const problems = stream.results.map((r) => r.problem as Record<string, unknown> | undefined);
      expect(problems[1]).toMatchObject({ code: 'invalid_body', status: 400, line: 4, path: '$' });
      expect(problems[2]).toMatchObject({ code: 'invalid_body', line: 5, path: '$.params' });
      expect(problems[3]).toMatchObject({ code: 'invalid_body', line: 6, max_bytes: 64 * 1024 });
    });

    it('selects fields given in the query', async () => {
      const url = `${origin}/v1/company/bulk?fields=name,industry_codes.abn`;
      const stream = await postStream(url, t.auth, [JSON.stringify({ params: { fqdn: 'acme.com.au' } })]);
      expect(stream.results[0]!.record).toEqual({
        id: 'f000000000001',
        name: 'Acme Holdings',
        industry_codes: { abn: '51824753556' },
      });
    });

    it("paces a stream at the key's rate: 150 lines at 50/s take two seconds past the first second's burst", async () => {
      const key = await t.newKey({ rate: 50 });
      const started = performance.now();
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(150, (i) => ({ id: PEOPLE_IDS[i % 3] })),
      );
      const seconds = (performance.now() - started) / 1000;
      expect(stream.count).toBe(150);
      expect(stream.results.every((r, i) => r.ref === String(i) && r.status === 'matched')).toBe(true);
      expect(seconds).toBeGreaterThanOrEqual(1.8);
      expect(seconds).toBeLessThan(6);
      expect(await auditCount(key.id)).toBe(150);
    });

    it('refuses a stream with 429 when the key has no token left, and 401 without a key', async () => {
      const key = await t.newKey({ rate: 1 });
      const first = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(1, () => ({ id: 'x' })),
      );
      expect(first.status).toBe(200);
      const refused = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(1, () => ({ id: 'x' })),
      );
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'rate_limited' });
      const anonymous = await postStream(
        `${origin}/v1/people/bulk`,
        '',
        itemLines(1, () => ({ id: 'x' })),
      );
      expect(anonymous.status).toBe(401);
    });

    it('stops looking up once the client goes away mid-stream, and keeps serving others', async () => {
      const key = await t.newKey({ rate: 2_000 });
      const total = 20_000;
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(total, (i) => ({ id: PEOPLE_IDS[i % 3] })),
        {
          keep: false,
          onResult: (_result, count, request) => {
            if (count === 500) request.destroy();
          },
        },
      );
      expect(stream.count).toBeGreaterThanOrEqual(500);
      await sleep(500);
      const stopped = await auditCount(key.id);
      await sleep(1_000);
      // Nothing more was looked up after the client left: a rate of 2,000/s would have added ~2,000 a second.
      expect(await auditCount(key.id)).toBe(stopped);
      expect(stopped).toBeLessThan(total / 4);
      const healthy = await t.app.inject({
        url: '/v1/people?id=fp000000000001',
        headers: { authorization: t.auth },
      });
      expect(healthy.statusCode).toBe(200);
    });
  });
}

describe('a bulk whose store fails part-way', () => {
  let t: TestApp;
  let origin: string;
  /** Lookups the store answers before it fails; Infinity: it never does. */
  let answers = Number.POSITIVE_INFINITY;
  beforeAll(async () => {
    t = await testApp('sqlite');
    const { store } = t;
    const failing = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'findRecords') return Reflect.get(target, property, receiver);
        return (...args: Parameters<typeof store.findRecords>) => {
          if (answers-- <= 0) throw new StoreUnavailableError();
          return target.findRecords(...args);
        };
      },
    });
    const app = await buildApp({ store: failing });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const close = t.close;
    t.close = async () => {
      await app.close();
      await close();
    };
  });
  afterAll(() => t.close());

  it('ends a stream with an error line once results have begun, and answers a JSON bulk 503', async () => {
    answers = 30;
    const stream = await postStream(
      `${origin}/v1/people/bulk`,
      t.auth,
      itemLines(500, () => ({ id: PEOPLE_IDS[0] })),
    );
    expect(stream.status).toBe(200);
    const last = stream.results.at(-1)!;
    expect(last).toMatchObject({ status: 'error', problem: { code: 'unavailable', status: 503 } });
    expect(stream.results.slice(0, -1).every((r) => r.status === 'matched')).toBe(true);
    expect(stream.count).toBeLessThanOrEqual(31);
    answers = 1;
    const json = await fetch(`${origin}/v1/people/bulk`, {
      method: 'POST',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        requests: [{ params: { id: PEOPLE_IDS[0] } }, { params: { id: PEOPLE_IDS[1] } }],
      }),
    });
    expect(json.status).toBe(503);
    expect(json.headers.get('retry-after')).toBe('2');
    expect(await json.json()).toMatchObject({ code: 'unavailable' });
  });
});

describe('a stream when the server shuts down', () => {
  it('ends after the results sent so far with a line asking for the rest again, and lets the server close', async () => {
    const t = await testApp('sqlite');
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const key = await t.newKey({ rate: 20 });
    let closing: Promise<void> | undefined;
    const stream = await postStream(
      `${origin}/v1/people/bulk`,
      key.auth,
      itemLines(200, () => ({ id: PEOPLE_IDS[0] })),
      {
        onResult: (_result, count) => {
          if (count === 25) closing = t.close();
        },
      },
    );
    const started = performance.now();
    await closing;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(stream.count).toBeLessThan(200);
    expect(stream.results.at(-1)).toMatchObject({
      status: 'error',
      problem: { code: 'unavailable', status: 503 },
    });
    expect(stream.results.slice(0, -1).every((r) => r.status === 'matched')).toBe(true);
  });
});
