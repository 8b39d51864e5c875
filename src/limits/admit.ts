// One request against a key's rate limit (contract §6): the RateLimit headers, or a 429 that carries them.
import { ProblemError } from '../errors.js';
import type { ApiKey } from '../store/keys.js';
import { type RateLimiter, rateLimitHeaders } from './rate-limit.js';

/**
 * Takes one request from the key's bucket and returns the headers every keyed response carries;
 * over the limit, throws `rate_limited` with those headers and Retry-After.
 */
export async function admit(limiter: RateLimiter, key: ApiKey): Promise<Record<string, string>> {
  const decision = await limiter.take(key.id, key.rate);
  const headers = rateLimitHeaders(key.rate, decision);
  if (decision.allowed) return headers;
  throw new ProblemError(
    'rate_limited',
    `This key allows ${key.rate} requests per second.`,
    {},
    {
      ...headers,
      'retry-after': String(decision.retryAfterSeconds),
    },
  );
}
