// Per-key token buckets in Redis, shared by every process: one Lua script refills and takes atomically.
import type { Redis, Result } from 'ioredis';
import { decisionFrom, type LimitDecision, type RateLimiter } from '../rate-limit.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichTakeToken(bucket: string, rate: number, cost: number): Result<[number, string], Context>;
  }
}

/**
 * KEYS[1]: the bucket, a hash { tokens, at }; ARGV[1]: the key's rate per second; ARGV[2]: the tokens a
 * request costs once admitted (a bulk's items; the bucket may go into debt).
 * Time comes from Redis itself, so instances with skewed clocks still share one bucket. A bucket
 * expires once it would be full again: a missing bucket and a full one are the same thing.
 */
const TAKE_TOKEN = `
local rate = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or rate
local at = tonumber(bucket[2]) or now
tokens = math.min(rate, tokens + math.max(0, now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((rate - tokens) / rate * 1000) + 1000)
return { allowed, tostring(tokens) }
`;

/**
 * Token buckets in Redis under `{prefix}bucket:{keyId}`, exact across any number of instances.
 * When Redis fails, the failure policy decides: admit (a full-bucket decision) or 503. Owns `redis`.
 * @example new RedisRateLimiter(connectRedis(url), 'enrich:', policy).take(key.id, key.rate)
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
  ) {
    redis.defineCommand('enrichTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
  }

  async take(keyId: string, rate: number, cost = 1): Promise<LimitDecision> {
    try {
      const bucket = `${this.prefix}bucket:{${keyId}}`;
      const [allowed, tokens] = await this.redis.enrichTakeToken(bucket, rate, cost);
      return decisionFrom(allowed === 1, Number(tokens), rate);
    } catch (error) {
      this.policy.failed('rate', error);
      return decisionFrom(true, rate - cost, rate);
    }
  }

  async close(): Promise<void> {
    await closeRedis(this.redis);
  }
}
