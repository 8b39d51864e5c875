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
});
