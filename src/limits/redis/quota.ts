// Monthly quotas in Redis, shared by every process: reservation and settlement are atomic Lua scripts.
import { randomBytes } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import { ProblemError } from '../../errors.js';
import type { ApiKey, Store } from '../../store/store.js';
import { MemoryQuotaCounter, type QuotaCounter, type QuotaTicket, quotaPeriod } from '../quota.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichReserveQuota(
      used: string,
      held: string,
      quota: number,
      seed: string,
      ticket: string,
      holdMs: number,
      expireAt: number,
    ): Result<[number, number, number], Context>;
    enrichSettleQuota(
      used: string,
      held: string,
      ticket: string,
      matched: number,
      expireAt: number,
    ): Result<number, Context>;
  }
}

/**
 * KEYS: the used count, the held reservations (a sorted set scored by when each lapses).
 * ARGV: quota, seed ('' when unknown), ticket, hold ms, expiry (unix seconds).
 * Returns { 1, used, held } with this reservation held, { 0, used, held } when used up, or { -1 }
 * when the period has no count yet and the caller must seed it from the store.
 */
const RESERVE = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EXAT', ARGV[5]) end
local used = redis.call('GET', KEYS[1])
if not used then return { -1, 0, 0 } end
used = tonumber(used)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local held = redis.call('ZCARD', KEYS[2])
if used + held >= tonumber(ARGV[1]) then return { 0, used, held } end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('EXPIREAT', KEYS[2], ARGV[5])
return { 1, used, held + 1 }
`;

/** KEYS as above; ARGV: ticket, matched (1 or 0), expiry. Counts a match even if its hold had lapsed. */
const SETTLE = `
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == '1' then
  redis.call('INCR', KEYS[1])
  redis.call('EXPIREAT', KEYS[1], ARGV[3])
end
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
  /** How often matched counts are written to the store, ms. */
  flushEveryMs?: number;
  /** How long a reservation holds before it lapses (its process died mid-lookup), ms. */
  holdMs?: number;
  now?: () => Date;
}

/**
 * Quota counts in Redis under `{prefix}quota:{keyId:period}:…`, exact across instances: a lookup is
 * refused while used + live reservations reach the quota. The first use of a period seeds the count
 * from the store (SET NX, so only one instance's seed counts). Matched lookups are also written to the
 * store in the background, as on one instance, so that usage reports keep working. Owns `redis`.
 */
export class RedisQuotaCounter implements QuotaCounter {
  private readonly instance = randomBytes(6).toString('base64url');
  private sequence = 0;
  private readonly settling = new Set<Promise<unknown>>();
  /** Last remainder seen per key, for the header while Redis is down and the policy is `open`. */
  private readonly lastRemaining = new Map<string, number>();
  /** Writes matched counts to the store, batched: a MemoryQuotaCounter given no ceiling only counts. */
  private readonly storeCounts: MemoryQuotaCounter;
  private readonly holdMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
    private readonly store: Store,
    options: RedisQuotaOptions = {},
  ) {
    this.holdMs = options.holdMs ?? 60_000;
    this.now = options.now ?? (() => new Date());
    this.storeCounts = new MemoryQuotaCounter(store, options.flushEveryMs ?? 1000, this.now);
    redis.defineCommand('enrichReserveQuota', { numberOfKeys: 2, lua: RESERVE });
    redis.defineCommand('enrichSettleQuota', { numberOfKeys: 2, lua: SETTLE });
  }

  async reserve(key: ApiKey): Promise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const counted = (await this.storeCounts.reserve({ ...key, quota: Number.MAX_SAFE_INTEGER }))!;
    try {
      return await this.reserveInRedis(key.id, key.quota, counted);
    } catch (error) {
      counted.settle(false);
      throw error;
    }
  }

  private async reserveInRedis(keyId: string, quota: number, counted: QuotaTicket): Promise<QuotaTicket> {
    const period = quotaPeriod(this.now());
    const ticket = `${this.instance}:${++this.sequence}`;
    let outcome = await this.tryReserve(keyId, period, quota, ticket, '');
    if (outcome?.[0] === -1) {
      const seed = await this.store.quotaUsed(keyId, period);
      outcome = await this.tryReserve(keyId, period, quota, ticket, String(seed));
    }
    if (outcome === undefined) return this.unchecked(keyId, quota, counted);
    const [reserved, used, held] = outcome;
    if (reserved !== 1) {
      this.lastRemaining.set(keyId, 0);
      throw new ProblemError(
        'quota_exceeded',
        `This key's quota of ${quota} matched lookups for ${period} is used up.`,
        {},
        {
          'enrich-quota-remaining': '0',
        },
      );
    }
    const remaining = Math.max(0, quota - used - held);
    this.lastRemaining.set(keyId, remaining);
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          counted.settle(matched);
          this.release(keyId, period, ticket, matched);
        }
        return matched ? remaining : remaining + 1;
      },
    };
  }

  /** The script's answer, or undefined when Redis failed and the policy admits the lookup. */
  private async tryReserve(keyId: string, period: string, quota: number, ticket: string, seed: string) {
    const [used, held] = this.keys(keyId, period);
    try {
      return await this.redis.enrichReserveQuota(
        used,
        held,
        quota,
        seed,
        ticket,
        this.holdMs,
        periodExpiry(period),
      );
    } catch (error) {
      this.policy.failed('quota', error);
      return undefined;
    }
  }

  private release(keyId: string, period: string, ticket: string, matched: boolean): void {
    const [used, held] = this.keys(keyId, period);
    const settling: Promise<unknown> = this.redis
      .enrichSettleQuota(used, held, ticket, matched ? 1 : 0, periodExpiry(period))
      .catch((error: unknown) => this.policy.record('quota', error))
      .finally(() => this.settling.delete(settling));
    this.settling.add(settling);
  }

  /** A ticket for a lookup admitted without Redis: still counted in the store for usage reports. */
  private unchecked(keyId: string, quota: number, counted: QuotaTicket): QuotaTicket {
    let settled = false;
    return {
      settle: (matched) => {
        const remaining = this.lastRemaining.get(keyId) ?? quota;
        if (!settled) {
          settled = true;
          counted.settle(matched);
          if (matched) this.lastRemaining.set(keyId, Math.max(0, remaining - 1));
        }
        return this.lastRemaining.get(keyId) ?? remaining;
      },
    };
  }

  private keys(keyId: string, period: string): [used: string, held: string] {
    // One hash tag per key and period, so that both keys live on one Redis Cluster slot.
    const base = `${this.prefix}quota:{${keyId}:${period}}`;
    return [`${base}:used`, `${base}:held`];
  }

  async flush(): Promise<void> {
    await this.storeCounts.flush();
  }

  async close(): Promise<void> {
    await Promise.all(this.settling);
    await this.storeCounts.close();
    await closeRedis(this.redis);
  }
}
