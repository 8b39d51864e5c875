// Worker thread: builds the claimed entities of a SQLite store's serving index from a read-only connection of
// its own, so that a server's event loop goes on answering (from SQLite) while it runs. Each entity's part
// goes into service as soon as it is built; the main thread learns of it from the index's flags.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ServingIndex } from '../serving/serving-index.js';
import { IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { IDENTIFIERS_READY, type IndexBuildInput, type IndexBuildReport } from './index-build.js';
import { SqliteIndexSource } from './index-source.js';
import { applyPragmas } from './schema.js';

const port = parentPort!;
const { dbPath, indexPath, claims, stop, pace, identifiers } = workerData as IndexBuildInput;

/** Waits for a bulk load's identifier table (Atomics.wait: this thread has nothing else to do). */
function identifiersReady(): boolean {
  if (identifiers === undefined) return true;
  Atomics.wait(identifiers, 0, 0);
  return Atomics.load(identifiers, 0) === IDENTIFIERS_READY;
}

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see ../../worker.ts).
async function run() {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  let index: ServingIndex | undefined;
  try {
    applyPragmas(db, true);
    index = ServingIndex.open(indexPath, new SqliteIndexSource(db), IDENTIFIER_KIND_CODES);
    const stopped = () => Atomics.load(stop, 0) === 1;
    for (const { entity, claim } of claims) {
      const started = performance.now();
      if (index.buildClaimed(entity, claim, stopped, pace, identifiersReady)) {
        port.postMessage({ built: entity, ms: performance.now() - started } satisfies IndexBuildReport);
      }
    }
  } catch (error) {
    port.postMessage({ failed: (error as Error).message } satisfies IndexBuildReport);
  } finally {
    await index?.close();
    db.close();
  }
}

void run();
