// Usage per key, UTC day and operation: counted in memory on the lookup path, added to the store every second.
import type { LookupOutcome } from '../metrics.js';
import type { Operation, Store, UsageRow } from '../store/store.js';
import { COUNTERS, emptyCounts, mergeUsage } from './usage-report.js';

/** A lookup's outcome as metered; `failed` (a 5xx) counts as a request and nothing else. */
export type UsageOutcome = LookupOutcome | 'failed';

const DAY_MS = 86_400_000;

const rowId = (keyId: string, day: string, operation: Operation) => `${keyId}|${day}|${operation}`;

/**
 * Counts held here and flushed in the background, so that metering a lookup only increments numbers.
 * Counts a flush could not write are kept for the next one.
 */
export class UsageMeter {
  private pending = new Map<string, UsageRow>();
  private readonly timer: NodeJS.Timeout;
  /** Flushes and reports run one at a time, so a report never counts a row twice or misses one. */
  private turn: Promise<unknown> = Promise.resolve();
  private day = { text: '', endMs: 0 };

  constructor(
    private readonly store: Store,
    flushEveryMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => {}), flushEveryMs);
    this.timer.unref();
  }

  record(keyId: string, operation: Operation, outcome: UsageOutcome): void {
    const day = this.today();
    const id = rowId(keyId, day, operation);
    let row = this.pending.get(id);
    if (!row) {
      row = { key_id: keyId, day, operation, ...emptyCounts() };
      this.pending.set(id, row);
    }
    row.requests++;
    if (outcome !== 'failed') row[outcome]++;
  }

  /** A key's usage from `since` ('YYYY-MM-DD'): what the store holds plus what is not yet flushed. */
  report(keyId: string, since: string): Promise<UsageRow[]> {
    return this.inTurn(async () => {
      const stored = await this.store.usage({ keyId, since });
      const unflushed = [...this.pending.values()].filter((r) => r.key_id === keyId && r.day >= since);
      return mergeUsage([...stored, ...unflushed]);
    });
  }

  flush(): Promise<void> {
    return this.inTurn(async () => {
      if (this.pending.size === 0) return;
      const rows = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.store.addUsage(rows);
      } catch (error) {
        for (const row of rows) this.putBack(row);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private putBack(row: UsageRow): void {
    const id = rowId(row.key_id, row.day, row.operation);
    const known = this.pending.get(id);
    if (known) for (const c of COUNTERS) known[c] += row[c];
    else this.pending.set(id, row);
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work);
    this.turn = run.catch(() => {});
    return run;
  }

  /** The UTC day of now, 'YYYY-MM-DD', worked out once a day rather than once a request. */
  private today(): string {
    const nowMs = this.now();
    if (nowMs >= this.day.endMs || nowMs < this.day.endMs - DAY_MS) {
      this.day = {
        text: new Date(nowMs).toISOString().slice(0, 10),
        endMs: (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS,
      };
    }
    return this.day.text;
  }
}
