// Monthly quotas in Redis, shared by every process: reservation and settlement are atomic Lua scripts.
import type { Redis, Result } from 'ioredis';
import type { AccountingStore } from '../../store/accounting.js';
import type { ApiKey } from '../../store/keys.js';
import {
  type QuotaCounter,
  type QuotaGrant,
  type QuotaTicket,
  quotaExceeded,
  quotaPeriod,
} from '../quota.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichReserveQuota(
      used: string,
      quota: number,
      seed: string,
      expireAt: number,
    ): Result<[number, number], Context>;
    enrichReleaseQuota(used: string): Result<number, Context>;
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
 * KEYS: the period's used count. ARGV: quota, seed ('' when unknown), expiry (unix seconds).
 * A reservation counts at once: { 1, used } with it counted, { 0, used } when used up, or { -1, 0 } when
 * the period has no count yet and the caller must seed it from the store.
 */
const RESERVE = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EXAT', ARGV[3]) end
local used = redis.call('GET', KEYS[1])
if not used then return { -1, 0 } end
used = tonumber(used)
if used >= tonumber(ARGV[1]) then return { 0, used } end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return { 1, used }
`;

/** KEYS as above: a lookup that did not match gives its reservation back. */
const RELEASE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then redis.call('DECR', KEYS[1]) end
return 1
`;

/**
 * KEYS and the first three ARGV as RESERVE; ARGV[4]: the items of a bulk. Reserves as many as the quota has
 * left: { granted, used } with them counted, or { -1, 0 } when the period must be seeded first.
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

/** KEYS as above; ARGV[1]: how many items of a grant did not match, given back. */
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

export interface RedisQuotaOptions {
  now?: () => Date;
}

/**
 * Quota counts in Redis under `{prefix}quota:{keyId:period}:used`, exact across instances. A reservation
 * is counted when it is made and given back only when its lookup did not match, so a process that dies
 * mid-lookup never leaves a match uncounted: a crash can only overcount (by lookups in flight). The first
 * use of a period seeds the count from the store (SET NX, so only one instance's seed counts). The store's
 * own counts come from the accounting journal. Owns `redis`.
 */
export class RedisQuotaCounter implements QuotaCounter {
  private readonly releasing = new Set<Promise<unknown>>();
  /** Last remainder seen per key, for the header while Redis is down and the policy is `open`. */
  private readonly lastRemaining = new Map<string, number>();
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
    private readonly store: AccountingStore,
    options: RedisQuotaOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    redis.defineCommand('enrichReserveQuota', { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand('enrichReleaseQuota', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('enrichReserveQuotaItems', { numberOfKeys: 1, lua: RESERVE_ITEMS });
    redis.defineCommand('enrichReleaseQuotaItems', { numberOfKeys: 1, lua: RELEASE_ITEMS });
  }

  async reserve(key: ApiKey): Promise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const period = quotaPeriod(this.now());
    let outcome = await this.tryReserve(key.id, period, key.quota, '');
    if (outcome?.[0] === -1) {
      const seed = await this.store.quotaUsed(key.id, period);
      outcome = await this.tryReserve(key.id, period, key.quota, String(seed));
    }
    if (outcome === undefined) return this.unchecked(key.id, key.quota);
    const [reserved, used] = outcome;
    if (reserved !== 1) {
      this.lastRemaining.set(key.id, 0);
      throw quotaExceeded(key.quota, period);
    }
    const remaining = Math.max(0, key.quota - used);
    this.lastRemaining.set(key.id, remaining);
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          if (!matched) this.release(key.id, period);
        }
        return matched ? remaining : remaining + 1;
      },
    };
  }

  /**
   * Reserves as many of a bulk's items as the quota has left; the items not matched are given back when
   * the grant is settled.
   */
  async reserveItems(key: ApiKey, items: number): Promise<QuotaGrant | null> {
    if (key.quota === null) return null;
    const period = quotaPeriod(this.now());
    let outcome = await this.tryReserve(key.id, period, key.quota, '', items);
    if (outcome?.[0] === -1) {
      const seed = await this.store.quotaUsed(key.id, period);
      outcome = await this.tryReserve(key.id, period, key.quota, String(seed), items);
    }
    if (outcome === undefined) return this.uncheckedItems(key.id, key.quota, items);
    const [granted, used] = outcome;
    const remaining = Math.max(0, key.quota - used);
    this.lastRemaining.set(key.id, remaining);
    let settled = false;
    return {
      granted,
      settle: (matched) => {
        const unused = granted - Math.min(matched, granted);
        if (!settled) {
          settled = true;
          if (unused > 0) this.release(key.id, period, unused);
        }
        return remaining + unused;
      },
    };
  }

  /**
   * The script's answer, or undefined when Redis failed and the policy admits the lookup. With `items`, a
   * bulk's reservation of that many.
   */
  private async tryReserve(keyId: string, period: string, quota: number, seed: string, items?: number) {
    try {
      const used = this.usedKey(keyId, period);
      const expiry = periodExpiry(period);
      return items === undefined
        ? await this.redis.enrichReserveQuota(used, quota, seed, expiry)
        : await this.redis.enrichReserveQuotaItems(used, quota, seed, expiry, items);
    } catch (error) {
      this.policy.failed('quota', error);
      return undefined;
    }
  }

  /** Gives back one reservation, or `items` of a grant. */
  private release(keyId: string, period: string, items?: number): void {
    const used = this.usedKey(keyId, period);
    const giving =
      items === undefined
        ? this.redis.enrichReleaseQuota(used)
        : this.redis.enrichReleaseQuotaItems(used, items);
    const releasing: Promise<unknown> = giving
      .catch((error: unknown) => this.policy.record('quota', error))
      .finally(() => this.releasing.delete(releasing));
    this.releasing.add(releasing);
  }

  /** A ticket for a lookup admitted without Redis (failing open): the journal still counts it in the store. */
  private unchecked(keyId: string, quota: number): QuotaTicket {
    let settled = false;
    return {
      settle: (matched) => {
        const remaining = this.lastRemaining.get(keyId) ?? quota;
        if (!settled) {
          settled = true;
          if (matched) this.lastRemaining.set(keyId, Math.max(0, remaining - 1));
        }
        return this.lastRemaining.get(keyId) ?? remaining;
      },
    };
  }

  /** A grant of every item of a bulk admitted without Redis (failing open): the journal still counts them. */
  private uncheckedItems(keyId: string, quota: number, items: number): QuotaGrant {
    let settled = false;
    return {
      granted: items,
      settle: (matched) => {
        const remaining = this.lastRemaining.get(keyId) ?? quota;
        if (settled) return remaining;
        settled = true;
        this.lastRemaining.set(keyId, Math.max(0, remaining - matched));
        return Math.max(0, remaining - matched);
      },
    };
  }

  private usedKey(keyId: string, period: string): string {
    // One hash tag per key and period (Redis Cluster).
    return `${this.prefix}quota:{${keyId}:${period}}:used`;
  }

  async close(): Promise<void> {
    await Promise.all(this.releasing);
    await closeRedis(this.redis);
  }
}
