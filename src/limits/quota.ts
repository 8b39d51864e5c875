// Monthly quotas in matched lookups (contract §6): reserved before a lookup, counted only when it matched.
import { ProblemError } from '../errors.js';
import type { ApiKey, Store } from '../store/store.js';

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

export interface QuotaCounter {
  /** Reserves one lookup, or throws `quota_exceeded`. Returns null for a key without a quota. */
  reserve(key: ApiKey): Promise<QuotaTicket | null>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Quota counts held in this process and written to the store in the background, so that a lookup
 * never waits on a write. Exact within one process: a lookup is refused while used + in-flight
 * reservations reach the quota.
 */
export class MemoryQuotaCounter implements QuotaCounter {
  private readonly usage = new Map<string, Usage | Promise<Usage>>();
  private pending = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    flushEveryMs = 1000,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => {}), flushEveryMs);
    this.timer.unref();
  }

  async reserve(key: ApiKey): Promise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const quota = key.quota;
    const usage = await this.current(key.id);
    if (usage.used + usage.reserved >= quota) {
      throw new ProblemError(
        'quota_exceeded',
        `This key's quota of ${quota} matched lookups for ${usage.period} is used up.`,
        {},
        {
          'enrich-quota-remaining': '0',
        },
      );
    }
    usage.reserved++;
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          usage.reserved--;
          if (matched) this.count(key.id, usage);
        }
        return Math.max(0, quota - usage.used - usage.reserved);
      },
    };
  }

  private count(keyId: string, usage: Usage): void {
    usage.used++;
    this.addPending(usage.period, keyId, 1);
  }

  private addPending(period: string, keyId: string, n: number): void {
    let byKey = this.pending.get(period);
    if (!byKey) {
      byKey = new Map();
      this.pending.set(period, byKey);
    }
    byKey.set(keyId, (byKey.get(keyId) ?? 0) + n);
  }

  private async current(keyId: string): Promise<Usage> {
    const period = quotaPeriod(this.now());
    const known = this.usage.get(keyId);
    if (known && !(known instanceof Promise) && known.period === period) return known;
    if (known instanceof Promise) {
      const loaded = await known;
      if (loaded.period === period) return loaded;
    }
    const loading = this.store.quotaUsed(keyId, period).then((used) => {
      const usage = { period, used, reserved: 0 };
      this.usage.set(keyId, usage);
      return usage;
    });
    this.usage.set(keyId, loading);
    try {
      return await loading;
    } catch (error) {
      this.usage.delete(keyId);
      throw error;
    }
  }

  async flush(): Promise<void> {
    const pending = this.pending;
    if (pending.size === 0) return;
    this.pending = new Map();
    for (const [period, counts] of pending) {
      try {
        await this.store.addQuotaUse(period, counts);
      } catch (error) {
        // Keep the counts for the next flush rather than lose them.
        for (const [keyId, n] of counts) this.addPending(period, keyId, n);
        throw error;
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
