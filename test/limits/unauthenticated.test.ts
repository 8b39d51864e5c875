import type { IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/tokens.js';
import { ProblemError } from '../../src/errors.js';
import { addressBucket } from '../../src/limits/address-bucket.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { RedisRateLimiter } from '../../src/limits/redis/rate-limit.js';
import { UnauthenticatedLimit } from '../../src/limits/unauthenticated.js';
import { connected, policy, testPrefix } from '../cluster/redis.js';
import { bucketAllows, dataSet, PERSON_ID, serve } from '../cluster/serve.js';
import { type TestApp, testApp } from '../helpers/app.js';

const PERSON = '/people?id=fp000000000001';
const unknownToken = () => `Bearer ${mintToken()}`;

describe('requests without a valid token, per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 5 });
    // A first request pays for what loads lazily (hundreds of milliseconds on a busy machine), long
    // enough at 5 a second for a bucket to refill a token mid-test: paid here, from an address of its own.
    await t.app.inject({ url: PERSON, remoteAddress: '203.0.113.1' });
  });
  afterAll(() => t.close());

  let address = 0;
  /** A fresh client address per test: each starts with a full bucket. */
  const nextAddress = () => `198.51.100.${++address}`;
  const get = (url: string, remoteAddress: string, authorization?: string) =>
    t.app.inject({ url, remoteAddress, headers: authorization === undefined ? {} : { authorization } });

  it.each([
    ['no Authorization header', () => undefined],
    ['a malformed header', () => 'Basic abc'],
    ['a malformed token', () => 'Bearer enr_short'],
    ['an unknown token', unknownToken],
  ])('answers 401 to %s up to the rate, then 429 with Retry-After and RateLimit', async (_what, header) => {
    const from = nextAddress();
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await get(PERSON, from, header())).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = await get(PERSON, from, header());
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=5;w=1');
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=1');
    expect(refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('counts revoked, expired and rotated-out tokens as requests without a valid token', async () => {
    const from = nextAddress();
    const revoked = await t.newKey();
    await t.store.revokeKey(revoked.id, new Date());
    const expired = await t.newKey({ expiresAt: new Date(Date.now() - 1000) });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(PERSON, from, revoked.auth)).statusCode);
    for (let i = 0; i < 3; i++) statuses.push((await get(PERSON, from, expired.auth)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('limits every keyed route, not only lookups, from the same bucket', async () => {
    const from = nextAddress();
    const statuses = [];
    for (const url of [
      PERSON,
      '/v1/usage',
      '/company?fqdn=acme.com.au',
      '/v1/usage',
      '/v1/people?id=x',
      '/v1/usage',
    ]) {
      statuses.push((await get(url, from, unknownToken())).statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('never charges requests with a valid token, and keeps serving them while their address is over its limit', async () => {
    const from = nextAddress();
    for (let i = 0; i < 20; i++) expect((await get(PERSON, from, t.auth)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(PERSON, from, unknownToken())).statusCode).toBe(401);
    expect((await get(PERSON, from, unknownToken())).statusCode).toBe(429);
    expect((await get(PERSON, from, t.auth)).statusCode).toBe(200);
    expect((await get('/v1/usage', from, t.auth)).statusCode).toBe(200);
  });

  it('charges 404s of paths no route takes and their 415s as 401s are: probing is refused 429 past the limit', async () => {
    const from = nextAddress();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(`/x${i}/bulk`, from)).statusCode);
    for (let i = 0; i < 3; i++) {
      const probe = await t.app.inject({
        method: 'POST',
        url: '/x/bulk',
        remoteAddress: from,
        headers: { 'content-type': 'application/x-ndjson' },
        payload: '{}\n',
      });
      statuses.push(probe.statusCode);
    }
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses.slice(3).every((status) => status === 404 || status === 415)).toBe(true);
    // The sixth took the address over its limit of five: refused from the next request, whatever it asks.
    expect((await get('/x/bulk', from)).statusCode).toBe(429);
    expect((await get(PERSON, from)).statusCode).toBe(429);
    expect((await get(PERSON, nextAddress())).statusCode).toBe(401);
  });

  it('keeps other addresses out of it', async () => {
    const noisy = nextAddress();
    for (let i = 0; i < 6; i++) await get(PERSON, noisy);
    expect((await get(PERSON, noisy)).statusCode).toBe(429);
    expect((await get(PERSON, nextAddress())).statusCode).toBe(401);
  });

  it("does no work on a token from an address over its limit: the store is not asked for the token's key", async () => {
    const from = nextAddress();
    for (let i = 0; i < 6; i++) await get(PERSON, from, unknownToken());
    const findKeyByHash = t.store.findKeyByHash.bind(t.store);
    let asked = 0;
    t.store.findKeyByHash = (hash) => {
      asked++;
      return findKeyByHash(hash);
    };
    try {
      for (let i = 0; i < 10; i++) expect((await get(PERSON, from, unknownToken())).statusCode).toBe(429);
      expect(asked).toBe(0);
    } finally {
      t.store.findKeyByHash = findKeyByHash;
    }
  });

  it('does not limit public routes: health, metrics and the API document answer whatever the address did', async () => {
    const from = nextAddress();
    for (let i = 0; i < 6; i++) await get(PERSON, from);
    for (const url of ['/healthz', '/readyz', '/openapi.json']) {
      expect((await get(url, from)).statusCode).toBe(200);
    }
  });
});

describe('a keyed route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 2 });
    t.app.keyedRoute({ method: 'POST', url: '/v1/things', scopes: [] }, async () => ({ ok: true }));
    // As a route that streams its reply does: hijacked, writing the raw response, 401 included.
    const config = { keyed: { overLimit: 'from the next request' as const } };
    t.app.post('/v1/streamed', { schema: { security: [{ bearer: [] }] }, config }, (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(401, { 'content-type': 'application/problem+json' });
      reply.raw.end('{"code":"unauthorized"}');
    });
  });
  afterAll(() => t.close());
  const post = (url: string, remoteAddress: string) => t.app.inject({ method: 'POST', url, remoteAddress });

  it('gets the limit, Cache-Control and nosniff by being declared keyed: its 401s count, the last one a 429', async () => {
    const first = await post('/v1/things', '192.0.2.200');
    expect(first.statusCode).toBe(401);
    expect(first.headers['cache-control']).toBe('private, no-store');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    const statuses = [(await post('/v1/things', '192.0.2.200')).statusCode];
    statuses.push((await post('/v1/things', '192.0.2.200')).statusCode);
    expect(statuses).toEqual([401, 429]);
    expect((await t.app.inject({ url: PERSON, remoteAddress: '192.0.2.200' })).statusCode).toBe(429);
  });

  it('that writes its own 401 has it charged once sent: the address is refused from the next request', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post('/v1/streamed', '192.0.2.201')).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('cannot be registered without being declared keyed: a token without admission is refused at start', async () => {
    const fresh = await testApp('sqlite');
    try {
      const schema = { security: [{ bearer: [] }] };
      expect(() => fresh.app.post('/v1/unadmitted', { schema }, async () => ({}))).toThrow(/keyedRoute/);
    } finally {
      await fresh.close();
    }
  });
});

describe('the client address behind proxies', () => {
  let t: TestApp;
  afterEach(() => t.close());
  const from = (remoteAddress: string, forwardedFor?: string) =>
    t.app.inject({
      url: PERSON,
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
  const statuses = async (requests: Array<() => Promise<{ statusCode: number }>>) => {
    const out = [];
    for (const request of requests) out.push((await request()).statusCode);
    return out;
  };

  it('is the peer, whatever X-Forwarded-For says, unless proxies are trusted', async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 2 });
    const spoofed = (i: number) => () => from('192.0.2.10', `203.0.113.${i}`);
    expect(await statuses([spoofed(1), spoofed(2), spoofed(3)])).toEqual([401, 401, 429]);
  });

  it('is the address a trusted proxy forwarded for, so that clients behind one balancer are limited apart', async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 2, trustProxy: ['10.0.0.0/8'] });
    const client = (a: string) => () => from('10.1.2.3', a);
    expect(await statuses([client('203.0.113.1'), client('203.0.113.1'), client('203.0.113.1')])).toEqual([
      401, 401, 429,
    ]);
    expect((await client('203.0.113.2')()).statusCode).toBe(401);
  });

  it('takes X-Forwarded-For only through trusted hops: an address a client wrote itself is not believed', async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 2, trustProxy: ['10.0.0.0/8'] });
    // The client put 198.51.100.x in the header; the trusted proxy appended the client's real address.
    const lying = (i: number) => () => from('10.1.2.3', `198.51.100.${i}, 203.0.113.9`);
    expect(await statuses([lying(1), lying(2), lying(3)])).toEqual([401, 401, 429]);
    // A peer that is not a trusted proxy is the client, whatever it forwards.
    const direct = (i: number) => () => from('192.0.2.77', `198.51.100.${i}`);
    expect(await statuses([direct(1), direct(2), direct(3)])).toEqual([401, 401, 429]);
  });

  it('counts hops when given a number: the address that many proxies in front of the server forwarded for', async () => {
    t = await testApp('sqlite', { unauthenticatedRate: 2, trustProxy: 2 });
    const through = (client: string) => () => from('10.0.0.1', `${client}, 10.0.0.2`);
    expect(await statuses([through('203.0.113.1'), through('203.0.113.1'), through('203.0.113.1')])).toEqual([
      401, 401, 429,
    ]);
    expect((await through('203.0.113.2')()).statusCode).toBe(401);
  });
});

describe('an address', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s is limited as %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });
});

describe('the buckets of addresses', () => {
  const request = (address: string) =>
    ({ socket: { remoteAddress: address }, headers: {} }) as IncomingMessage;
  const unauthorized = new ProblemError('unauthorized', 'The bearer token is not recognised.');

  it('frees an address again once its Retry-After has passed', () => {
    let now = 1_000_000;
    const limit = new UnauthenticatedLimit(
      new MemoryRateLimiter(() => now),
      2,
      (req) => req.socket.remoteAddress!,
      () => now,
    );
    const codes = () => {
      const refusal = limit.refusal(request('203.0.113.1'));
      return refusal?.code ?? (limit.charge(request('203.0.113.1'), unauthorized) as ProblemError).code;
    };
    expect([codes(), codes(), codes(), codes()]).toEqual([
      'unauthorized',
      'unauthorized',
      'rate_limited',
      'rate_limited',
    ]);
    now += 1_000;
    expect(limit.blocking).toBe(true);
    expect(codes()).toBe('unauthorized');
    expect(limit.blocking).toBe(false);
  });

  it('stay bounded in memory however many addresses come by', () => {
    const limiter = new MemoryRateLimiter(() => 0, 1_000);
    for (let i = 0; i < 20_000; i++) limiter.take(`ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 20);
    expect(limiter.size).toBeLessThanOrEqual(1_000);
    // A bucket forgotten is a full one: a new request from the address is admitted.
    expect(limiter.take('ip:10.0.0.0', 20).allowed).toBe(true);
  });

  it('forget idle buckets first, keeping one in use', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now, 100);
    for (let i = 0; i < 99; i++) limiter.take(`idle-${i}`, 20);
    now = 120_000;
    for (let i = 0; i < 20; i++) limiter.take('busy', 20);
    limiter.take('new', 20); // the 101st bucket: the idle ones go
    expect(limiter.size).toBe(2);
    expect(limiter.take('busy', 20).allowed).toBe(false);
  });

  it('are shared through Redis, so that every instance sees one bucket per address', async () => {
    const prefix = testPrefix();
    const [a, b] = [await connected(), await connected()];
    try {
      const address = () => '203.0.113.50';
      const one = new UnauthenticatedLimit(
        new RedisRateLimiter(a, prefix, policy('open').failure),
        3,
        address,
      );
      const two = new UnauthenticatedLimit(
        new RedisRateLimiter(b, prefix, policy('open').failure),
        3,
        address,
      );
      const codes = [];
      for (const limit of [one, two, one, two])
        codes.push((await limit.charge(request('x'), unauthorized)).code);
      expect(codes).toEqual(['unauthorized', 'unauthorized', 'unauthorized', 'rate_limited']);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});

describe('the per-address limit of a server with workers', () => {
  it('is one bucket for the machine: the primary holds it, as it holds the keys', async () => {
    const { db } = dataSet(100);
    const server = await serve(['--db', db, '--workers', '2'], { ENRICH_UNAUTHENTICATED_RATE: '5' });
    try {
      const started = performance.now();
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async () => {
          // A connection each, so that both workers take their share.
          const response = await fetch(`${server.url}/people?id=${PERSON_ID}`, {
            headers: { authorization: unknownToken(), connection: 'close' },
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const unauthorized = statuses.filter((s) => s === 401).length;
      expect(unauthorized).toBeGreaterThanOrEqual(5);
      expect(unauthorized).toBeLessThanOrEqual(bucketAllows(5, seconds));
      expect(statuses.filter((s) => s === 429).length).toBe(30 - unauthorized);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
