// The audit log's writer: entries buffered in memory and written in batches off the request path.
import type { AuditEntry, Store } from '../store/store.js';

export interface AuditLogOptions {
  /** How often buffered entries are written. Default 200 ms. */
  flushEveryMs?: number;
  /** Entries per write; a full batch is written at once. Default 1,000. */
  batchSize?: number;
  /** Entries held at most: the request that fills the buffer waits for a write. Default 10,000. */
  capacity?: number;
  /** Entries older than this many days are pruned at start and once a day; never when omitted. */
  retentionDays?: number;
  /** Told of a failed write (the entries are kept and retried) or prune. */
  onError?: (error: unknown) => void;
  now?: () => Date;
}

const DAY_MS = 86_400_000;

/**
 * Buffers audit entries and writes them in batches. Memory is bounded by `capacity` through
 * backpressure, never by dropping entries; `close()` writes everything left.
 * @example const wait = audit.record(entry); if (wait) await wait;
 */
export class AuditLog {
  private buffer: AuditEntry[] = [];
  private writing: Promise<void> | undefined;
  private pruning: Promise<void> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly batchSize: number;
  private readonly capacity: number;
  private readonly onError: (error: unknown) => void;
  private readonly now: () => Date;

  constructor(
    private readonly store: Store,
    private readonly opts: AuditLogOptions = {},
  ) {
    this.batchSize = Math.max(1, opts.batchSize ?? 1000);
    this.capacity = Math.max(this.batchSize, opts.capacity ?? 10_000);
    this.onError = opts.onError ?? (() => {});
    this.now = opts.now ?? (() => new Date());
    this.every(opts.flushEveryMs ?? 200, () => {
      if (this.buffer.length > 0) void this.flush().catch(this.onError);
    });
    if (opts.retentionDays !== undefined) {
      this.prune();
      this.every(DAY_MS, () => this.prune());
    }
  }

  /**
   * Buffers an entry. Returns a promise only when the buffer is full: the caller awaits it, so a
   * burst is slowed to the pace of the store rather than held in memory without bound.
   */
  record(entry: AuditEntry): Promise<void> | undefined {
    this.buffer.push(entry);
    if (this.buffer.length >= this.capacity) return this.flush();
    if (this.buffer.length >= this.batchSize && !this.writing) void this.flush().catch(this.onError);
    return undefined;
  }

  /** Writes what is buffered now, batch by batch; callers during a write share it. */
  flush(): Promise<void> {
    this.writing ??= this.write(this.buffer.length).finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  /** Stops the timers, waits for a running prune and writes every buffered entry. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.pruning;
    await this.writing?.catch(() => {});
    while (this.buffer.length > 0) await this.flush();
  }

  private async write(count: number): Promise<void> {
    while (count > 0) {
      const batch = this.buffer.splice(0, Math.min(count, this.batchSize));
      count -= batch.length;
      try {
        await this.store.addAudit(batch);
      } catch (error) {
        this.buffer.unshift(...batch);
        throw error;
      }
    }
  }

  private prune(): void {
    if (this.pruning || this.opts.retentionDays === undefined) return;
    const before = new Date(this.now().getTime() - this.opts.retentionDays * DAY_MS);
    this.pruning = this.store
      .pruneAudit(before)
      .then(
        () => {},
        (error: unknown) => this.onError(error),
      )
      .finally(() => {
        this.pruning = undefined;
      });
  }

  private every(ms: number, task: () => void): void {
    const timer = setInterval(task, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
