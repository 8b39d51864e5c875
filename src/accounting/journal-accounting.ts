// Accounting through the journal: a lookup's record is appended on the request thread and the records of
// one event-loop turn are written in one system call, before that turn's replies. Folding into the store
// happens elsewhere (a worker thread, or a timer for an in-memory store).
import type { Worker } from 'node:worker_threads';
import type { AccountingStore } from '../store/accounting.js';
import type { StoreLocation } from '../store/open.js';
import { startWorker } from '../worker.js';
import type { Accounting, LookupRecord } from './accounting.js';
import type { FoldReply, FoldRequest, FoldWorkerInput } from './fold-worker.js';
import { JournalFolder } from './folder.js';
import type { JournalWriter } from './journal.js';
import { journalLine } from './journal-format.js';
import type { JournalHealth } from './journal-health.js';

/** Folds the journal into the store. */
export interface Folds {
  /** Folds what the journal holds now; resolves once it is in the store. */
  foldNow(): Promise<number>;
  /** Folds what is left and stops; resolves with how many lookups that last fold put in the store. */
  close(): Promise<number>;
  /** When the last complete fold began (ms since the epoch): every lookup committed before is folded. */
  foldedUpTo(): number;
}

/** Folding on this thread, every `everyMs` (an in-memory store, which another thread cannot open). */
export function foldHere(
  store: AccountingStore,
  dir: string,
  everyMs: number,
  retentionDays?: number,
): Folds {
  const folder = new JournalFolder(store, dir, { retentionDays });
  const timer = setInterval(() => void folder.fold().catch(() => {}), everyMs);
  timer.unref();
  return {
    foldNow: () => folder.foldNow(),
    close: async () => {
      clearInterval(timer);
      return folder.foldNow();
    },
    foldedUpTo: () => folder.foldedUpTo,
  };
}

/** Folding in a worker thread with its own connection to the store at `location`. */
export function foldInWorker(
  location: StoreLocation,
  dir: string,
  everyMs: number,
  onError: (error: unknown) => void,
  retentionDays?: number,
): Folds {
  const input: FoldWorkerInput = { location, dir, everyMs, retentionDays };
  const worker: Worker = startWorker(import.meta.url, './fold-worker', input);
  const waiting = new Map<number, { resolve(n: number): void; reject(e: Error): void }>();
  let next = 0;
  let closed: ((folded: number) => void) | undefined;
  let exited = false;
  let foldedUpTo = Date.now();
  worker.on('message', (reply: FoldReply) => {
    if ('closed' in reply) return closed?.(reply.folded);
    if ('foldedUpTo' in reply) {
      foldedUpTo = reply.foldedUpTo;
      return;
    }
    const waiter = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ('error' in reply) {
      if (waiter) waiter.reject(new Error(reply.error));
      else onError(new Error(reply.error));
    } else waiter?.resolve(reply.folded);
  });
  const failAll = (error: Error) => {
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
    closed?.(0);
  };
  worker.on('error', (error) => {
    onError(error);
    failAll(error);
  });
  worker.on('exit', () => {
    exited = true;
    failAll(new Error('the journal folding thread stopped'));
  });
  const send = (request: FoldRequest) => worker.postMessage(request);
  return {
    foldNow: () =>
      new Promise((resolve, reject) => {
        if (exited) return reject(new Error('the journal folding thread stopped'));
        const id = ++next;
        waiting.set(id, { resolve, reject });
        send({ op: 'fold', id });
      }),
    close: () =>
      new Promise<number>((resolve) => {
        if (exited) return resolve(0);
        closed = resolve;
        send({ op: 'close' });
      }),
    foldedUpTo: () => foldedUpTo,
  };
}

export class JournalAccounting implements Accounting {
  private closed = false;

  constructor(
    private readonly writer: JournalWriter,
    private readonly folds: Folds,
    private readonly onError: (error: unknown) => void,
    readonly health?: JournalHealth,
  ) {}

  append(lookup: LookupRecord): void {
    if (!this.closed) this.writer.append(journalLine(lookup));
  }

  commit(): void {
    const records = this.writer.waiting;
    try {
      this.writer.commit();
    } catch (error) {
      this.health?.failed(error, records);
      throw error;
    }
    if (records > 0) this.health?.succeeded();
  }

  async foldNow(): Promise<void> {
    this.commit();
    await this.folds.foldNow();
  }

  /** Seconds since the start of the last complete fold: no committed lookup has waited longer to be folded. */
  foldLagSeconds(now = Date.now()): number {
    return Math.max(0, (now - this.folds.foldedUpTo()) / 1000);
  }

  /**
   * Commits what is buffered and folds what it can; resolves with how many lookups that fold put in the
   * store. A fold that fails (the store is gone) loses nothing: the journal stays on disk, and the next
   * server to start on it folds it first.
   */
  async close(): Promise<number> {
    if (this.closed) return 0;
    this.closed = true;
    this.health?.close();
    this.writer.close();
    return this.folds.close().catch((error: unknown) => {
      this.onError(error);
      return 0;
    });
  }
}
