// Per-key token buckets in Redis, shared by every process: Lua scripts refill and take (or lease) atomically.
import type { Redis, Result } from 'ioredis';
import { decisionFrom, type LimitDecision, type RateLimiter } from '../rate-limit.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichTakeToken(
      bucket: string,
      rate: number,
      cost: number,
      held: number,
    ): Result<[number, string], Context>;
    enrichLeaseTokens(
      bucket: string,
      rate: number,
      want: number,
      back: number,
    ): Result<[number, string], Context>;
  }
}

/**
 * KEYS[1]: the bucket, a hash { tokens, at }; ARGV[1]: the key's rate per second; ARGV[3]: tokens leased
 * earlier and given back now. Refills the bucket by Redis's own clock, so instances with skewed clocks still
 * share one bucket, and leaves `tokens` (never over a second's worth) and `now` for the script's end.
 */
const REFILL = `
local rate = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or rate
local at = tonumber(bucket[2]) or now
tokens = math.min(rate, tokens + math.max(0, now - at) / 1000 * rate + tonumber(ARGV[3]))
`;

/** Saves the bucket; it expires once it would be full again: a missing bucket and a full one are the same. */
const SAVE = `
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((rate - tokens) / rate * 1000) + 1000)
`;

/**
 * As REFILL; ARGV[2]: the tokens a request costs once admitted (a bulk's items; the bucket may go into
 * debt), ARGV[3] the tokens a server held for it. Answers { admitted, tokens left }.
 */
const TAKE_TOKEN = `${REFILL}
local allowed = 0
if tokens >= 1 then
  tokens = tokens - tonumber(ARGV[2])
  allowed = 1
end
${SAVE}
return { allowed, tostring(tokens) }
`;

/**
 * As REFILL; ARGV[2]: how many whole tokens a server would lease. Answers { tokens leased, tokens left }:
 * as many as asked while the bucket holds them, none once it holds no whole token.
 */
const LEASE_TOKENS = `${REFILL}
local granted = 0
if tokens >= 1 then granted = math.min(tonumber(ARGV[2]), math.floor(tokens)) end
tokens = tokens - granted
${SAVE}
return { granted, tostring(tokens) }
`;

/** Defines the bucket scripts on a connection: `enrichTakeToken` and `enrichLeaseTokens`. */
export function defineBucketScripts(redis: Redis): void {
  redis.defineCommand('enrichTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
  redis.defineCommand('enrichLeaseTokens', { numberOfKeys: 1, lua: LEASE_TOKENS });
}

/** A key's bucket in Redis: one hash tag per key (Redis Cluster). */
export const bucketKey = (prefix: string, keyId: string) => `${prefix}bucket:{${keyId}}`;

/**
 * Token buckets in Redis under `{prefix}bucket:{keyId}`, exact across any number of instances, at one round
 * trip a request: the baseline the leased limiter (what servers use) is measured against, and the
 * per-address buckets' reference. When Redis fails, the failure policy decides: admit (a full-bucket
 * decision) or 503. Owns `redis`.
 * @example new RedisRateLimiter(connectRedis(url), 'enrich:', policy).take(key.id, key.rate)
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
  ) {
    defineBucketScripts(redis);
  }

  async take(keyId: string, rate: number, cost = 1): Promise<LimitDecision> {
    try {
      const bucket = bucketKey(this.prefix, keyId);
      const [allowed, tokens] = await this.redis.enrichTakeToken(bucket, rate, cost, 0);
      return decisionFrom(allowed === 1, Number(tokens), rate);
    } catch (error) {
      this.policy.failed('rate', error);
      this.policy.checkedLocally('rate');
      return decisionFrom(true, rate - cost, rate);
    }
  }

  async close(): Promise<void> {
    await closeRedis(this.redis);
  }
}
