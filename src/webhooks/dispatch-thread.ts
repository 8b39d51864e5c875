// Worker thread: a server's webhook dispatcher on an event loop and store connection of its own, at a lower
// scheduling priority than the thread that answers lookups (see start.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../priority.js';
import { openStore, type StoreLocation } from '../store/open.js';
import { type DispatchSettings, startDispatch } from './start.js';

export interface DispatchThreadInput {
  location: Pick<StoreLocation, 'dbPath' | 'databaseUrl'>;
  settings: DispatchSettings;
}

type Outcome = 'delivered' | 'retrying' | 'failed';

/** Attempts' outcomes (those recorded together, in one message), or a failure to log. */
export type FromDispatchThread =
  | { outcomes: Outcome[] }
  | { error: { message: string; stack?: string | undefined } };

/** How long the dispatch thread's writes wait for the write lock before the dispatcher retries them. */
const DISPATCH_BUSY_TIMEOUT_MS = 5;

const port = parentPort!;
const { location, settings } = workerData as DispatchThreadInput;

const report = (error: unknown) => {
  const { message, stack } = error instanceof Error ? error : new Error(String(error));
  port.postMessage({ error: { message, stack } } satisfies FromDispatchThread);
};

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see worker.ts).
async function run() {
  // This thread alone, and what it starts, runs below the lookups.
  lowerThisThread();
  // A connection that writes no records: no serving index of its own. Its writes fail busy at once while
  // another process (a refresh) holds SQLite's write lock, and the dispatcher retries them, its attempts
  // going on meanwhile, instead of this thread's loop standing still in SQLite's wait.
  const store = await openStore({
    ...location,
    servingIndex: false,
    localDir: undefined,
    busyTimeoutMs: DISPATCH_BUSY_TIMEOUT_MS,
  });
  // Outcomes told in one message a turn of this thread's loop, not one an attempt.
  let outcomes: Outcome[] = [];
  const tell = () => {
    port.postMessage({ outcomes } satisfies FromDispatchThread);
    outcomes = [];
  };
  const dispatcher = startDispatch(
    settings,
    store,
    (outcome) => {
      if (outcomes.push(outcome) === 1) setImmediate(tell);
    },
    report,
  );
  port.on('message', (message: 'wake' | 'close') => {
    if (message === 'wake') return dispatcher.wake();
    void dispatcher
      .close()
      .then(() => store.close())
      .catch(report)
      .finally(() => process.exit(0));
  });
}

run().catch((error: unknown) => {
  report(error);
  process.exit(1);
});
