// The Lua scripts of monthly quotas in Redis: lease (reserve), give back, reconcile after an outage.
import type { Redis, Result } from 'ioredis';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichReconcileQuota(used: string, delta: number, expireAt: number): Result<number, Context>;
    enrichReserveQuotaItems(
      used: string,
      quota: number,
      seed: string,
      expireAt: number,
      items: number,
    ): Result<[number, number], Context>;
    enrichReleaseQuotaItems(used: string, items: number): Result<number, Context>;
  }
}

/**
 * KEYS: the period's used count. ARGV: the lookups an outage counted here, less the units this server held
 * when it began (counted already), and the expiry. Added only to a count that survived the outage: a count
 * Redis lost is seeded again from the store, whose journal has those lookups. Answers the count, or -1.
 */
const RECONCILE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used < 0 then used = 0; redis.call('SET', KEYS[1], 0, 'KEEPTTL') end
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return used
`;

/**
 * KEYS: the period's used count. ARGV: quota, seed ('' when unknown), expiry (unix seconds), how many units
 * to reserve (a lease, or a bulk's items). Reserves as many as the quota has left, counted at once:
 * { granted, used }, or { -1, 0 } when the period has no count yet and the caller must seed it from the store
 * (SET NX, so that only one server's seed counts).
 */
const RESERVE_ITEMS = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EXAT', ARGV[3]) end
local used = redis.call('GET', KEYS[1])
if not used then return { -1, 0 } end
used = tonumber(used)
local granted = math.min(tonumber(ARGV[4]), tonumber(ARGV[1]) - used)
if granted <= 0 then return { 0, used } end
used = redis.call('INCRBY', KEYS[1], granted)
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return { granted, used }
`;

/** KEYS as above; ARGV[1]: how many units reserved earlier go back (unspent, or not matched). */
const RELEASE_ITEMS = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local back = math.min(used, tonumber(ARGV[1]))
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return 1
`;

/** Counts outlive their month by two days, so a late settlement still lands. */
const EXPIRY_MARGIN_SECONDS = 2 * 86_400;

/** Unix seconds at which a period's counters expire. */
export function periodExpiry(period: string): number {
  const [year, month] = period.split('-').map(Number);
  return Date.UTC(year!, month!, 1) / 1000 + EXPIRY_MARGIN_SECONDS; // month is 1-based: the next month's 1st
}

/** Defines the quota scripts on a connection. */
export function defineQuotaScripts(redis: Redis): void {
  redis.defineCommand('enrichReserveQuotaItems', { numberOfKeys: 1, lua: RESERVE_ITEMS });
  redis.defineCommand('enrichReleaseQuotaItems', { numberOfKeys: 1, lua: RELEASE_ITEMS });
  redis.defineCommand('enrichReconcileQuota', { numberOfKeys: 1, lua: RECONCILE });
}

/** A key's count for a period: one hash tag per key and period (Redis Cluster). */
export const usedKey = (prefix: string, keyId: string, period: string) =>
  `${prefix}quota:{${keyId}:${period}}:used`;
