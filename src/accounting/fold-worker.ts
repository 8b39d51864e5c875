// Worker thread: folds the accounting journal into the store on a connection of its own, off the
// thread that answers lookups.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore, type StoreLocation } from '../store/open.js';
import { JournalFolder } from './folder.js';

export interface FoldWorkerInput {
  location: StoreLocation;
  dir: string;
  everyMs: number;
  retentionDays?: number;
}

/** 'fold': fold now and answer; 'close': fold what is left, close the store and stop. */
export type FoldRequest = { op: 'fold'; id: number } | { op: 'close' };
export type FoldReply = { id: number; folded: number } | { id: number; error: string } | { closed: true };

const port = parentPort!;
const { location, dir, everyMs, retentionDays } = workerData as FoldWorkerInput;

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see src/worker.ts).
async function run() {
  const store = await openStore({ ...location, servingIndex: false });
  const folder = new JournalFolder(store, dir, { retentionDays });
  const report = (error: unknown) =>
    port.postMessage({ id: 0, error: (error as Error)?.stack ?? String(error) } satisfies FoldReply);
  const timer = setInterval(() => void folder.fold().catch(report), everyMs);
  port.on('message', async (request: FoldRequest) => {
    if (request.op === 'fold') {
      try {
        port.postMessage({ id: request.id, folded: await folder.foldNow() } satisfies FoldReply);
      } catch (error) {
        port.postMessage({ id: request.id, error: String(error) } satisfies FoldReply);
      }
      return;
    }
    clearInterval(timer);
    try {
      await folder.foldNow();
    } catch (error) {
      report(error);
    }
    await store.close();
    port.postMessage({ closed: true } satisfies FoldReply);
    port.close();
  });
  port.postMessage({ id: 0, folded: 0 } satisfies FoldReply);
}

void run().catch((error: unknown) => {
  port.postMessage({ id: 0, error: (error as Error)?.stack ?? String(error) } satisfies FoldReply);
  port.close();
});
