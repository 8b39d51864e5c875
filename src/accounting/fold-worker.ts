// Worker thread: folds the accounting journal into the store on a connection of its own, off the
// thread that answers lookups.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore, type StoreLocation } from '../store/open.js';
import type { Store } from '../store/store.js';
import { JournalFolder } from './folder.js';

export interface FoldWorkerInput {
  location: StoreLocation;
  dir: string;
  everyMs: number;
  retentionDays?: number;
}

/** 'fold': fold now and answer; 'close': fold what is left, close the store and stop. */
export type FoldRequest = { op: 'fold'; id: number } | { op: 'close' };
export type FoldReply =
  | { id: number; folded: number }
  /** After each timed run that succeeded: what the folder's `foldedUpTo` now is. */
  | { foldedUpTo: number }
  | { id: number; error: string }
  | { closed: true; folded: number };

const port = parentPort!;
const { location, dir, everyMs, retentionDays } = workerData as FoldWorkerInput;

/** At most one error report per this many ms: an outage of the store must not be a log line per fold. */
const REPORT_EVERY_MS = 10_000;
let reportedAt = Number.NEGATIVE_INFINITY;
function report(error: unknown): void {
  const now = Date.now();
  if (now - reportedAt < REPORT_EVERY_MS) return;
  reportedAt = now;
  port.postMessage({ id: 0, error: (error as Error)?.stack ?? String(error) } satisfies FoldReply);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let closing = false;

/** Opens the store, retrying until it answers: meanwhile the journal only grows, and loses nothing. */
async function openWithRetry(): Promise<Store | undefined> {
  for (let delay = 500; !closing; delay = Math.min(delay * 2, REPORT_EVERY_MS)) {
    try {
      return await openStore({ ...location, servingIndex: false, localDir: undefined });
    } catch (error) {
      report(error);
      await sleep(delay);
    }
  }
  return undefined;
}

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see src/worker.ts).
async function run() {
  let folder: JournalFolder | undefined;
  let timer: NodeJS.Timeout | undefined;
  const opened = openWithRetry();
  port.on('message', async (request: FoldRequest) => {
    if (request.op === 'fold') {
      try {
        if (!folder) throw new Error('the data store is not open yet');
        port.postMessage({ id: request.id, folded: await folder.foldNow() } satisfies FoldReply);
      } catch (error) {
        port.postMessage({ id: request.id, error: String(error) } satisfies FoldReply);
      }
      return;
    }
    closing = true;
    clearInterval(timer);
    const store = await opened;
    let folded = 0;
    try {
      folded = (await folder?.foldNow()) ?? 0;
    } catch (error) {
      reportedAt = Number.NEGATIVE_INFINITY;
      report(error);
    }
    await store?.close();
    port.postMessage({ closed: true, folded } satisfies FoldReply);
    port.close();
  });
  port.postMessage({ id: 0, folded: 0 } satisfies FoldReply);
  const store = await opened;
  if (!store || closing) return;
  folder = new JournalFolder(store, dir, { retentionDays });
  timer = setInterval(() => {
    folder
      ?.fold()
      .then(() => port.postMessage({ foldedUpTo: folder!.foldedUpTo } satisfies FoldReply))
      .catch(report);
  }, everyMs);
}

void run().catch((error: unknown) => {
  port.postMessage({ id: 0, error: (error as Error)?.stack ?? String(error) } satisfies FoldReply);
  port.close();
});
