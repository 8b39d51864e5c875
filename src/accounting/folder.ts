// Folds accounting journal segments into the store: the audit log, usage and quota counts they add.
import { open, unlink } from 'node:fs/promises';
import type { AccountingStore } from '../store/accounting.js';
import { isAlive, thisWriter } from '../store/serving/writers.js';
import { listSegments, type Segment } from './journal.js';
import { foldLines } from './journal-format.js';

/** Bytes folded per transaction at most: bounds the memory and the length of one write. */
const RUN_BYTES = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;

export interface FolderOptions {
  /** Audit entries older than this many days are pruned at start and daily; never when omitted. */
  retentionDays?: number;
  now?: () => Date;
}

/** Reads `length` bytes of a file from `position` (fewer at its end). */
async function readRange(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Folds the segments of this process and those of processes that are gone (a crashed server's last
 * lines) — never a live process's, which it folds itself. Each run is folded in one transaction with
 * the segment's offset, so a run is counted once however many folders try it. A finished segment is
 * deleted once folded, then its offset forgotten.
 */
export class JournalFolder {
  private running: Promise<number> | undefined;
  private prunedAt = 0;
  /**
   * When the last run that folded everything it found began (ms since the epoch; the folder's creation before
   * any): every lookup committed before it is in the store. Its age is the journal's fold lag.
   */
  foldedUpTo = Date.now();

  constructor(
    private readonly store: AccountingStore,
    private readonly dir: string,
    private readonly options: FolderOptions = {},
  ) {}

  /** Folds everything there is to fold now; resolves with how many lookups it folded. Calls share a run. */
  fold(): Promise<number> {
    this.running ??= this.foldAll(false).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Waits for a run in progress, then folds once more, live processes' segments too (another worker's
   * lookups, for a usage report): everything committed before the call is in. Folding a run another
   * folder may fold too is safe — the store counts each run once.
   */
  async foldNow(): Promise<number> {
    await this.running?.catch(() => {});
    const run = this.foldAll(true);
    this.running = run;
    try {
      return await run;
    } finally {
      if (this.running === run) this.running = undefined;
    }
  }

  private async foldAll(everyone: boolean): Promise<number> {
    const started = Date.now();
    let folded = 0;
    const self = thisWriter();
    for (const segment of listSegments(this.dir)) {
      const own = segment.writer.pid === self.pid && segment.writer.started === self.started;
      if (!own && !everyone && isAlive(segment.writer)) continue;
      folded += await this.foldSegment(segment);
    }
    await this.pruneDaily();
    this.foldedUpTo = Math.max(this.foldedUpTo, started);
    return folded;
  }

  private async foldSegment(segment: Segment): Promise<number> {
    let folded = 0;
    for (;;) {
      const from = await this.store.journalOffset(segment.id);
      if (from < 0) {
        // Forgotten: folded to the end by another folder, whose delete of the file this one may have
        // listed before it happened (or which failed: it is tried again).
        await unlink(segment.path).catch(() => {});
        return folded;
      }
      let bytes: Buffer;
      try {
        bytes = await readRange(segment.path, from, RUN_BYTES);
      } catch {
        return folded; // sealed (renamed) or deleted meanwhile: the next run finds it under its new name
      }
      const end = bytes.lastIndexOf(0x0a) + 1;
      if (end === 0) {
        // Nothing whole left. A finished segment's trailing bytes were never a reply: drop them.
        if (segment.finished) await this.finish(segment);
        return folded;
      }
      const batch = foldLines(bytes.toString('utf8', 0, end));
      if (await this.store.foldJournal(segment.id, from, from + end, batch)) folded += batch.audit.length;
      // At the end of what is written: a growing segment waits for the next run; a finished one goes
      // (after one more pass if bytes of an unfinished last line remain).
      if (bytes.length < RUN_BYTES && (!segment.finished || end === bytes.length)) {
        if (segment.finished) await this.finish(segment);
        return folded;
      }
    }
  }

  /** A finished, folded segment: the file goes first, so a crash in between never folds it twice. */
  private async finish(segment: Segment): Promise<void> {
    await unlink(segment.path).catch(() => {});
    await this.store.forgetJournal(segment.id);
  }

  private async pruneDaily(): Promise<void> {
    const { retentionDays } = this.options;
    const now = (this.options.now ?? (() => new Date()))();
    if (retentionDays === undefined || now.getTime() - this.prunedAt < DAY_MS) return;
    this.prunedAt = now.getTime();
    await this.store.pruneAudit(new Date(now.getTime() - retentionDays * DAY_MS));
  }
}
