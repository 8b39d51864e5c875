// Whether this process can write its accounting journal. A failure (a full disk, mostly) is logged once when
// it starts and once when it ends — not once per refused request —, shown by /readyz and a metric, and its end
// probed for while no request comes (a load balancer that heeds /readyz sends none).
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The log lines a journal failure gives: its start (error) and end (info). */
export interface JournalLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface JournalHealthOptions {
  log: JournalLog;
  /** Throws while the journal still cannot be written (a server's: probeDirectory of the journal's directory). */
  probe: () => void;
  /** How often the probe runs while the journal fails. Default 1 s. */
  probeEveryMs?: number;
  now?: () => number;
}

/** Bytes a probe writes: a few blocks, so that a full disk is not mistaken for one with room. */
const PROBE_BYTES = 64 * 1024;

/** A probe of the journal's directory: a small file written and removed again. */
export const probeDirectory = (dir: string) => () => {
  const path = join(dir, '.space-probe');
  try {
    writeFileSync(path, Buffer.alloc(PROBE_BYTES));
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // Never written.
    }
  }
};

/** An error as the log and /readyz name it: `no space left on device (ENOSPC)`. */
export function describeJournalError(error: unknown): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (code === 'ENOSPC') return 'no space left on device (ENOSPC)';
  if (code === 'EDQUOT') return 'disk quota exceeded (EDQUOT)';
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'EROFS') return 'read-only file system (EROFS)';
  return code ? `${message} (${code})` : String(message ?? error);
}

export class JournalHealth {
  private since: number | undefined;
  private cause = '';
  private lost = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Commits that failed since the process started: the metric's counter. */
  failures = 0;
  private readonly now: () => number;

  constructor(private readonly options: JournalHealthOptions) {
    this.now = options.now ?? Date.now;
  }

  /** True while the journal cannot be written (keyed requests are then answered 503). */
  get failing(): boolean {
    return this.since !== undefined;
  }

  /** Why it cannot be written, while it cannot. */
  get problem(): string | undefined {
    return this.since === undefined ? undefined : this.cause;
  }

  /** A commit failed; `records` lookups' records were dropped (their replies refused). Logged only if new. */
  failed(error: unknown, records: number): void {
    this.failures++;
    this.lost += records;
    if (this.since !== undefined) return;
    this.since = this.now();
    this.cause = describeJournalError(error);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    this.options.log.error(
      { code },
      `accounting journal cannot be written: ${this.cause}; keyed requests are answered 503 until it can`,
    );
    this.timer = setInterval(() => this.probe(), this.options.probeEveryMs ?? 1000);
    this.timer.unref();
  }

  /** A commit succeeded: the end of a failure, if there was one. */
  succeeded(): void {
    if (this.since === undefined) return;
    const seconds = (this.now() - this.since) / 1000;
    const lost = this.lost;
    this.since = undefined;
    this.lost = 0;
    clearInterval(this.timer);
    this.options.log.info(
      { seconds, refused: lost },
      `accounting journal writable again after ${seconds.toFixed(1)} s; ${lost} lookup records could not be ` +
        'kept meanwhile, and their requests were answered 503',
    );
  }

  /** While failing: has room come back? Then the failure has ended, though no request has come. */
  probe(): void {
    if (this.since === undefined) return;
    try {
      this.options.probe();
    } catch {
      return;
    }
    this.succeeded();
  }

  close(): void {
    clearInterval(this.timer);
  }
}
