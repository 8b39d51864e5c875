// Per-minute counts of keyed requests (requests, outcomes, latency buckets, per key and operation), kept in
// memory by each process and added to the store once a minute: a few increments per request, one write a
// minute. Every process adds its own; the store sums them (src/store/sql/minutes.ts).
import { type AccountingStore, LATENCY_BOUNDS_MS, type MinuteRow } from '../store/accounting.js';
import { isBusy } from '../store/unavailable.js';
import type { Operation } from '../vocabulary/operations.js';
import { usageOutcome } from './usage-outcome.js';

/** How long minutes are kept: 30 days. */
export const MINUTES_KEPT_MS = 30 * 86_400_000;
const MINUTE_MS = 60_000;
/** After another process's write lock turned a flush away, it is tried again this soon. */
const BUSY_RETRY_MS = 1000;

/** A UTC minute as the store names it: 'YYYY-MM-DDTHH:MM'. */
export const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16);

/** The bucket of a latency: the first bound it does not exceed, or the last bucket. */
export function latencyBucket(ms: number): number {
  let i = 0;
  while (i < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[i]!) i++;
  return i;
}

/**
 * The latency under which `share` of the requests of some buckets were answered: the bound of the bucket
 * holding that rank; null when none was timed, or when it is in the last (unbounded) bucket.
 * @example latencyPercentile([0, 3, 1, …], 0.5) // 0.25
 */
export function latencyPercentile(buckets: readonly number[], share: number): number | null {
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total * share);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? null;
  }
  return null;
}

const emptyRow = (minute: string, keyId: string, operation: Operation): MinuteRow => ({
  minute,
  key_id: keyId,
  operation,
  requests: 0,
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  rejected: 0,
  latency: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0),
});

export class MinuteCounts {
  /** The minute being counted (ms since the epoch / 60,000), and its rows by key, then operation. */
  private minute = -1;
  private rows = new Map<string, Map<Operation, MinuteRow>>();
  /** Finished minutes not yet in the store. */
  private finished: MinuteRow[] = [];
  private readonly timer: NodeJS.Timeout;
  private lastPrune = 0;
  private flushing: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<AccountingStore, 'addMinutes' | 'pruneMinutes'>,
    private readonly onError: (error: unknown) => void,
    flushEveryMs = MINUTE_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  /** Counts one keyed request: its outcome by status (a search's by whether it returned any) and latency. */
  count(
    keyId: string,
    operation: Operation,
    status: number,
    returnedAny: boolean,
    ms?: number,
    at = Date.now(),
  ) {
    const minute = Math.floor(at / MINUTE_MS);
    if (minute !== this.minute) this.turn(minute);
    let byOperation = this.rows.get(keyId);
    if (byOperation === undefined) {
      byOperation = new Map();
      this.rows.set(keyId, byOperation);
    }
    let row = byOperation.get(operation);
    if (row === undefined) {
      row = emptyRow(minuteOf(at), keyId, operation);
      byOperation.set(operation, row);
    }
    row.requests++;
    const outcome = usageOutcome(operation, status, returnedAny);
    if (outcome !== 'failed') row[outcome]++;
    if (ms !== undefined) row.latency[latencyBucket(ms)]!++;
  }

  /** Moves the minute counted so far to the finished ones. */
  private turn(minute: number): void {
    for (const byOperation of this.rows.values()) this.finished.push(...byOperation.values());
    this.rows = new Map();
    this.minute = minute;
  }

  /**
   * Adds the finished minutes to the store (all counted so far with `everything`), and prunes what is older
   * than 30 days once an hour. Rows that could not be written are kept for the next flush. The flush of each
   * minute does not wait for SQLite's write lock, which a refresh in another process holds for seconds at a
   * time (this runs on the thread that answers lookups): turned away, it is tried again a second later.
   */
  flush(everything = false): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (everything || Math.floor(Date.now() / MINUTE_MS) !== this.minute) this.turn(this.minute);
      const rows = this.finished;
      this.finished = [];
      try {
        await this.store.addMinutes(rows, { wait: everything });
      } catch (error) {
        this.finished.unshift(...rows);
        if (everything || !isBusy(error)) {
          this.onError(error);
        } else {
          clearTimeout(this.retry);
          this.retry = setTimeout(() => void this.flush(), BUSY_RETRY_MS);
          this.retry.unref();
        }
        return;
      }
      // Its rows are written: a prune that fails is tried again in an hour, the rows not added twice.
      if (Date.now() - this.lastPrune > 3_600_000) {
        this.lastPrune = Date.now();
        await this.store.pruneMinutes(minuteOf(Date.now() - MINUTES_KEPT_MS)).catch(this.onError);
      }
    });
    return this.flushing;
  }

  /** Stops the timer and writes everything counted. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.retry);
    await this.flush(true);
  }
}
