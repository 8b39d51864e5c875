// When the client retries, and how long it waits first: pure decisions from a response's status and headers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../src/errors.js';
import { rateLimitResetSeconds, retryDelayMs } from '../src/retry.js';

const answer = (status: number, headers: Record<string, string> = {}) =>
  new Response(null, { status, headers });

describe('retry delays', () => {
  it('follow Retry-After on a 429 and a 503', () => {
    expect(retryDelayMs(answer(429, { 'retry-after': '2' }), 0)).toBe(2000);
    expect(retryDelayMs(answer(503, { 'retry-after': '1' }), 3)).toBe(1000);
  });

  it("follow the RateLimit header's reset on a 429 without Retry-After, when no request is left", () => {
    expect(retryDelayMs(answer(429, { ratelimit: '"default";r=0;t=3' }), 0)).toBe(3000);
    expect(rateLimitResetSeconds(new Headers({ ratelimit: '"default";t=2;r=0' }))).toBe(2);
    expect(rateLimitResetSeconds(new Headers({ ratelimit: '"default";r=4;t=1' }))).toBeUndefined();
    expect(rateLimitResetSeconds(new Headers())).toBeUndefined();
  });

  it('back off exponentially, with jitter, when the server gives no time', () => {
    const delays = [0, 1, 2].map((attempt) => retryDelayMs(answer(503), attempt)!);
    expect(delays[0]).toBeGreaterThanOrEqual(125);
    expect(delays[0]).toBeLessThanOrEqual(250);
    expect(delays[2]).toBeGreaterThanOrEqual(500);
    expect(delays[2]).toBeLessThanOrEqual(1000);
  });

  it('are none for any status but 429 and 503: a 402 is never retried', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 599 }).filter((status) => status !== 429 && status !== 503),
        (status) => retryDelayMs(answer(status, { 'retry-after': '1' }), 0) === undefined,
      ),
    );
  });

  it('read Retry-After as seconds or as an HTTP date, and ignore anything else', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '7' }))).toBe(7);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterSeconds(new Headers({ 'retry-after': inTenSeconds }))).toBeGreaterThanOrEqual(9);
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterSeconds(new Headers({ 'retry-after': '-1' }))).toBeUndefined();
  });
});
