import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { LeasedRateLimiter } from '../../src/limits/redis/leased-rate-limit.js';
import { RedisRateLimiter } from '../../src/limits/redis/rate-limit.js';
import { connected, DEAD_REDIS_URL, dropPrefix, policy, testPrefix } from '../cluster/redis.js';

const prefixes: string[] = [];
let prefix = '';
const open: (RedisRateLimiter | LeasedRateLimiter)[] = [];
type Kind = typeof RedisRateLimiter | typeof LeasedRateLimiter;
let Limiter: Kind = LeasedRateLimiter;

async function limiter(mode: 'open' | 'closed' = 'open', url?: string) {
  const made = policy(mode);
  const client: Redis = await connected(url);
  const created = new Limiter(client, prefix, made.failure);
  open.push(created);
  return { limiter: created, client, ...made };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});
beforeEach(() => {
  prefix = testPrefix(); // each test its own buckets, whichever limiter
  prefixes.push(prefix);
});
afterAll(() => Promise.all(prefixes.map(dropPrefix)));

describe.each([
  ['leased to each server', LeasedRateLimiter],
  ['asked at every request', RedisRateLimiter],
] as const)('token buckets in Redis, %s,', (_, kind) => {
  beforeEach(() => {
    Limiter = kind;
  });

  it('admit a burst of one second worth, then refuse with a time to retry', async () => {
    const { limiter: redis } = await limiter();
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await redis.take('burst', 5));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(decisions[5]).toMatchObject({ retryAfterSeconds: 1, resetSeconds: 1 });
  });

  it('refill from the time Redis keeps', async () => {
    // A slow rate, so that the machine's own delays between calls refill next to nothing.
    const { limiter: redis } = await limiter();
    const drained = await Promise.all(Array.from({ length: 5 }, () => redis.take('refill', 4)));
    expect(drained.filter((d) => d.allowed)).toHaveLength(4);
    await new Promise((resolve) => setTimeout(resolve, 500)); // 500 ms at 4/s: two tokens
    const after = await Promise.all(Array.from({ length: 6 }, () => redis.take('refill', 4)));
    const admitted = after.filter((d) => d.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(2);
    expect(admitted).toBeLessThanOrEqual(3);
  });

  it("apply a key's lowered rate from its next request", async () => {
    const { limiter: redis } = await limiter();
    expect((await redis.take('changed', 100)).remaining).toBe(99);
    expect(await redis.take('changed', 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect((await redis.take('changed', 2)).allowed).toBe(true);
    expect((await redis.take('changed', 2)).allowed).toBe(false);
  });

  it('share one bucket between processes, whichever connection asks', async () => {
    const a = await limiter();
    const b = await limiter();
    const takes = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).limiter.take('shared', 10));
    const admitted = (await Promise.all(takes)).filter((d) => d.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(11); // a token may refill while the 40 calls are in flight
  });

  it('admit a bulk while the bucket holds a token, charge all its items, and refuse until the debt is repaid', async () => {
    const { limiter: redis } = await limiter();
    const bulk = await redis.take('bulk', 10, 30);
    expect(bulk).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 3 });
    const next = await redis.take('bulk', 10);
    expect(next).toMatchObject({ allowed: false, retryAfterSeconds: 3 });
    expect(next.waitMs).toBeGreaterThan(2_000);
    expect(next.waitMs).toBeLessThanOrEqual(2_100);
  });

  it('keep a bucket only until it would be full again', async () => {
    const { limiter: redis, client } = await limiter();
    await redis.take('expiring', 4);
    const ttl = await client.pttl(`${prefix}bucket:{expiring}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(250 + 1000);
  });

  it('refuse with 503 and Retry-After when failing closed', async () => {
    const { limiter: redis, errors } = await limiter('closed', DEAD_REDIS_URL);
    const refusal = await Promise.resolve(redis.take('any', 3)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProblemError);
    expect(refusal).toMatchObject({ code: 'unavailable', status: 503, headers: { 'retry-after': '1' } });
    expect(await errors()).toBe(1);
  });
});

describe('leased token buckets when Redis is unreachable', () => {
  beforeEach(() => {
    Limiter = LeasedRateLimiter;
  });

  it("limit to the server's share when failing open, counting the failed call and warning once", async () => {
    const { limiter: redis, errors, warnings } = await limiter('open', DEAD_REDIS_URL);
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await redis.take('any', 3));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await errors()).toBe(5); // each decided without Redis
    expect(warnings).toEqual(["Redis is unreachable: limiting locally to all of each key's rate"]);
  });
});

describe('per-request token buckets when Redis is unreachable', () => {
  beforeEach(() => {
    Limiter = RedisRateLimiter;
  });

  it('admit the request when failing open, counting the error and warning once', async () => {
    const { limiter: redis, errors, warnings } = await limiter('open', DEAD_REDIS_URL);
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await redis.take('any', 3)).allowed).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await errors()).toBe(5);
    expect(warnings).toHaveLength(1);
  });
});
