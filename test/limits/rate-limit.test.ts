import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter, rateLimitHeaders, takeToken } from '../../src/limits/rate-limit.js';

describe('token bucket', () => {
  it('allows a burst of one second worth, then refuses', () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    const decisions = Array.from({ length: 51 }, () => limiter.take('k', 50));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    const refused = decisions[50]!;
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    now += 20; // 20 ms refills one token at 50/s
    expect(limiter.take('k', 50).allowed).toBe(true);
    expect(limiter.take('k', 50).allowed).toBe(false);
  });

  it('keeps separate buckets per key', () => {
    const limiter = new MemoryRateLimiter(() => 0);
    expect(limiter.take('a', 1).allowed).toBe(true);
    expect(limiter.take('a', 1).allowed).toBe(false);
    expect(limiter.take('b', 1).allowed).toBe(true);
  });

  it("applies a key's changed rate from its next request: a lower one at once, a higher one as it refills", () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    expect(limiter.take('k', 100).remaining).toBe(99);
    expect(limiter.take('k', 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take('k', 2).allowed).toBe(true);
    expect(limiter.take('k', 2).allowed).toBe(false);
    now += 100; // 100 ms at 100/s: ten tokens
    expect(limiter.take('k', 100)).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('never holds more than one second worth after idling', () => {
    const bucket = { tokens: 0, updatedMs: 0 };
    const decision = takeToken(bucket, 10, 3_600_000);
    expect(decision.allowed).toBe(true);
    expect(decision.remaining).toBe(9);
  });

  it('asks a slow key to wait several seconds', () => {
    const bucket = { tokens: 0, updatedMs: 0 };
    const decision = takeToken(bucket, 0.25, 0);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBe(4);
  });

  it('describes the policy and the remaining requests in draft RateLimit headers', () => {
    const limiter = new MemoryRateLimiter(() => 0);
    const headers = rateLimitHeaders(50, limiter.take('k', 50));
    expect(headers['ratelimit-policy']).toBe('"default";q=50;w=1');
    expect(headers.ratelimit).toBe('"default";r=49;t=1');
  });

  it('admits a bulk while the bucket holds a token and charges every item, leaving it in debt', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    const bulk = limiter.take('k', 10, 30);
    expect(bulk).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 3 });
    // 10 - 30 = -20 tokens: a whole one is back after 2.1 s, so Retry-After says 3.
    const next = limiter.take('k', 10);
    expect(next).toMatchObject({ allowed: false, retryAfterSeconds: 3, waitMs: 2100 });
    now += 2_000;
    expect(limiter.take('k', 10).allowed).toBe(false);
    now += 100;
    expect(limiter.take('k', 10)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refuses a bulk, charging nothing, while the bucket is in debt', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    limiter.take('k', 10, 15);
    expect(limiter.take('k', 10, 100)).toMatchObject({ allowed: false, waitMs: 600 });
    now += 600;
    expect(limiter.take('k', 10, 1)).toMatchObject({ allowed: true, waitMs: 100 });
  });

  it('says how long to wait for the next admission to the millisecond', () => {
    const bucket = { tokens: 0, updatedMs: 0 };
    expect(takeToken(bucket, 50, 0, 5)).toMatchObject({ allowed: false, waitMs: 20 });
    expect(takeToken(bucket, 50, 20, 5)).toMatchObject({ allowed: true, waitMs: 100 });
    expect(takeToken({ tokens: 50, updatedMs: 0 }, 50, 0, 1).waitMs).toBe(0);
  });

  it('holds a long run of bulks to the key rate however they are sized', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    let items = 0;
    for (let step = 0; step < 100_000; step++) {
      const size = 1 + (step % 37);
      if (limiter.take('k', 100, size).allowed) items += size;
      now += 1;
    }
    // 100 s at 100 items per second, plus the first burst and at most one bulk of debt.
    expect(items).toBeGreaterThanOrEqual(100 * 100);
    expect(items).toBeLessThanOrEqual(100 * 100 + 100 + 37);
  });
});
