// Lookups over a real socket enter by LookupPath.serve, which splits the URL and parses the query itself;
// through inject() they enter by Fastify's router. Every case — each kind of answer, and raw URLs no
// browser would send — must get the same status, headers and body both ways, on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { LOOKUP_CASES } from '../helpers/lookup-cases.js';
import { type Send, type Sent, sender } from '../helpers/transport.js';

const PERSON = 'fp000000000001';

/** Query strings as a client may write them, sent as they are (a fragment too, which no browser sends). */
const RAW_QUERIES = [
  `?id=${PERSON}#fragment`,
  `#?id=${PERSON}`,
  `?id=${PERSON}&&`,
  `?&id=${PERSON}`,
  `?id=${PERSON}&id`,
  `?%69d=${PERSON}`,
  '?work_email=jane.citizen%40acme.com.au',
  '?name=Jane+Citizen&company_domain=acme.com.au',
  '?name=Jane%20Citizen&company_id=f000000000001',
  '?id=%E0%A4%A',
  '?id=%zz',
  '?',
  '?=',
  '?id',
  `?ID=${PERSON}`,
  `?id=${PERSON}&fields=name,emails.work.value`,
  `?id=${PERSON}&fields=`,
];

/** Paths near a lookup's, which the lookup path leaves to the router. */
const NEAR_PATHS = ['/people/', '/PEOPLE', '/people%3Fid=x', '/v1/people/lookup', '/v1/people/bulk'];

/** What must match: status, body, and every header but the ones a connection or a clock decides. */
function answer(res: Sent) {
  const { date: _, connection: __, 'keep-alive': ___, 'x-request-id': ____, ...headers } = res.headers;
  return { status: res.statusCode, headers, body: res.body };
}

describe.each(BACKENDS)('a lookup over a socket, on %s', (backend) => {
  let t: TestApp;
  let inject: Send;
  let socket: Send;
  beforeAll(async () => {
    // A clock that stands still: two fresh keys' buckets say the same after their first request.
    t = await testApp(backend, { limiter: new MemoryRateLimiter(() => 0) });
    inject = await sender(t.app, 'inject');
    socket = await sender(t.app, 'socket');
  });
  afterAll(() => t.close());

  /** The same request both ways, each with a fresh key and the same request id. */
  const bothWays = async (method: 'GET' | 'HEAD', url: string, authorize = true) => {
    const headers = async (): Promise<Record<string, string>> => ({
      'x-request-id': 'same-request',
      ...(authorize ? { authorization: (await t.newKey()).auth } : {}),
    });
    const routed = await inject({ method, url, headers: await headers() });
    const served = await socket({ method, url, headers: await headers() });
    return { routed: answer(routed), served: answer(served) };
  };

  it.each(LOOKUP_CASES.map(([operation, params]) => [operation.path, params] as const))(
    'answers %s %j as the router does',
    async (path, params) => {
      const url = `${path}?${new URLSearchParams(params as Record<string, string>)}`;
      for (const method of ['GET', 'HEAD'] as const) {
        const { routed, served } = await bothWays(method, url);
        expect(served, method).toEqual(routed);
      }
    },
  );

  // Over a socket, a path holding '%' goes to Fastify's router, which decodes it to the lookup's route:
  // the same query string is then split and parsed by the router instead of by serve.
  it.each(RAW_QUERIES)('splits and parses %s as the router does', async (query) => {
    const headers = async () => ({ 'x-request-id': 'same-request', authorization: (await t.newKey()).auth });
    const served = await socket({ url: `/people${query}`, headers: await headers() });
    const routed = await socket({ url: `/peop%6Ce${query}`, headers: await headers() });
    expect(routed.body).not.toContain('There is no GET'); // the router found the lookup
    expect(answer(served)).toEqual(answer(routed));
  });

  it.each(NEAR_PATHS)('leaves %s to the router', async (path) => {
    const { routed, served } = await bothWays('GET', `${path}?id=${PERSON}`);
    expect(served).toEqual(routed);
  });

  it.each(['', 'Basic abc', 'Bearer enr_short'])('refuses the token %j as the router does', async (token) => {
    const url = `/v1/people?id=${PERSON}`;
    const headers = { 'x-request-id': 'same-request', ...(token === '' ? {} : { authorization: token }) };
    const routed = await inject({ url, headers });
    const served = await socket({ url, headers });
    expect(answer(served)).toEqual(answer(routed));
    expect(served.statusCode).toBe(401);
  });
});
