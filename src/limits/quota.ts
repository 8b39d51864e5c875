// Monthly quotas in matched lookups (contract §6): reserved before a lookup, counted only when it matched.
import { ProblemError } from '../errors.js';
import type { AccountingStore } from '../store/accounting.js';
import type { ApiKey } from '../store/keys.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';

/** The quota period of a moment: its calendar month in UTC, 'YYYY-MM'. */
export const quotaPeriod = (at: Date) => at.toISOString().slice(0, 7);

interface Usage {
  period: string;
  used: number;
  reserved: number;
}

/** A reservation of one lookup against a key's quota; settle it exactly once. */
export interface QuotaTicket {
  /** Counts the lookup if it matched, frees the reservation otherwise; returns the quota remaining. */
  settle(matched: boolean): number;
}

/**
 * A reservation for the items of a bulk: up to `granted` of them may match; the items after those are past
 * the quota. Settle it exactly once.
 */
export interface QuotaGrant {
  /** How many of the items asked for may match (0 when the quota is used up). */
  readonly granted: number;
  /** Counts `matched` (at most `granted`) items, frees the rest; returns the quota remaining. */
  settle(matched: number): number;
}

export interface QuotaCounter {
  /**
   * Reserves one lookup, or throws `quota_exceeded` (or rejects with it). Null for a key without a
   * quota. Answered at once, without a promise, where the count is at hand in memory.
   */
  reserve(key: ApiKey): MaybePromise<QuotaTicket | null>;
  /**
   * Reserves up to `items` lookups at once, as many as the quota has left: one call for a bulk. Null for
   * a key without a quota. Answered at once, without a promise, where the count is at hand in memory.
   */
  reserveItems(key: ApiKey, items: number): MaybePromise<QuotaGrant | null>;
  close(): Promise<void>;
}

/** The refusal of a lookup past the quota: for a GET, and for each bulk item past it. */
export function quotaExceeded(quota: number, period: string): ProblemError {
  return new ProblemError(
    'quota_exceeded',
    `This key's quota of ${quota} matched lookups for ${period} is used up.`,
    {},
    { 'enrich-quota-remaining': '0' },
  );
}

/**
 * Quota counts held in this process: a key's month is read from the store once, then counted here.
 * Exact within one process: a lookup is refused while used + in-flight reservations reach the quota.
 * Counts reach the store through the accounting journal (every matched lookup is journalled before its
 * reply), never from here, so they are never counted twice and never lost in a crash.
 */
export class MemoryQuotaCounter implements QuotaCounter {
  private readonly usage = new Map<string, Usage | Promise<Usage>>();

  constructor(
    private readonly store: AccountingStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  reserve(key: ApiKey): MaybePromise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const usage = this.current(key.id);
    return isPromise(usage) ? usage.then((u) => this.take(key, u)) : this.take(key, usage);
  }

  reserveItems(key: ApiKey, items: number): MaybePromise<QuotaGrant | null> {
    if (key.quota === null) return null;
    const usage = this.current(key.id);
    return isPromise(usage) ? usage.then((u) => this.grant(key, u, items)) : this.grant(key, usage, items);
  }

  private grant(key: ApiKey, usage: Usage, items: number): QuotaGrant {
    const quota = key.quota!;
    const granted = Math.max(0, Math.min(items, quota - usage.used - usage.reserved));
    usage.reserved += granted;
    let settled = false;
    return {
      granted,
      settle: (matched) => {
        if (!settled) {
          settled = true;
          usage.reserved -= granted;
          usage.used += Math.min(matched, granted);
        }
        return Math.max(0, quota - usage.used - usage.reserved);
      },
    };
  }

  private take(key: ApiKey, usage: Usage): QuotaTicket {
    const quota = key.quota!;
    if (usage.used + usage.reserved >= quota) throw quotaExceeded(quota, usage.period);
    usage.reserved++;
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          usage.reserved--;
          if (matched) usage.used++;
        }
        return Math.max(0, quota - usage.used - usage.reserved);
      },
    };
  }

  /** This period's count of a key: at once when known, else loaded from the store (one load per key). */
  private current(keyId: string): MaybePromise<Usage> {
    const period = quotaPeriod(this.now());
    const known = this.usage.get(keyId);
    if (known && !isPromise(known) && known.period === period) return known;
    if (known && isPromise(known)) {
      return known.then((loaded) => (loaded.period === period ? loaded : this.load(keyId, period)));
    }
    return this.load(keyId, period);
  }

  private load(keyId: string, period: string): Promise<Usage> {
    const loading = this.store.quotaUsed(keyId, period).then(
      (used) => {
        const usage = { period, used, reserved: 0 };
        this.usage.set(keyId, usage);
        return usage;
      },
      (error: unknown) => {
        this.usage.delete(keyId);
        throw error;
      },
    );
    this.usage.set(keyId, loading);
    return loading;
  }

  async close(): Promise<void> {}
}
