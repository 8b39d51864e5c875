// Worker thread: builds the claimed entities of a SQLite store's serving index from a read-only connection of
// its own, so that a server's event loop goes on answering (from SQLite) while it runs. Each entity's part
// goes into service as soon as it is built; the main thread learns of it from the index's flags.
import { once } from 'node:events';
import { statfsSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ServingIndex } from '../serving/serving-index.js';
import { IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import {
  type BuildOrder,
  type BuildPaths,
  IDENTIFIERS_READY,
  type IndexBuildInput,
  type IndexBuildReport,
} from './index-build.js';
import { SqliteIndexSource } from './index-source.js';
import { applyPragmas } from './schema.js';

const port = parentPort!;

/** Waits for a bulk load's identifier table (Atomics.wait: this thread has nothing else to do). */
function identifiersReady(identifiers: Int32Array | undefined): boolean {
  if (identifiers === undefined) return true;
  Atomics.wait(identifiers, 0, 0);
  return Atomics.load(identifiers, 0) === IDENTIFIERS_READY;
}

/**
 * Free bytes below which a build is not begun: on a disk that is full (an import that filled it still ends
 * its bulk load), LMDB's first write would fail and liblmdb print its own "Write error" to stderr, over the
 * command's message. The build fails instead, saying why, as it would have.
 */
const LEAST_FREE_BYTES = 4 * 1024 * 1024;

function roomFor(indexPath: string): void {
  const { bavail, bsize } = statfsSync(path.dirname(indexPath));
  if (bavail * bsize < LEAST_FREE_BYTES) throw new Error('the disk is full');
}

/** The build: the thread's paths in its data, what to build in its first message (see startEarly). */
async function input(): Promise<IndexBuildInput> {
  const [order] = (await once(port, 'message')) as [BuildOrder];
  return { ...(workerData as BuildPaths), ...order };
}

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see ../../worker.ts).
async function run() {
  const { dbPath, indexPath, claims, stop, pace, identifiers } = await input();
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  let index: ServingIndex | undefined;
  try {
    applyPragmas(db, true);
    roomFor(indexPath);
    index = ServingIndex.open(indexPath, new SqliteIndexSource(db), IDENTIFIER_KIND_CODES);
    const stopped = () => Atomics.load(stop, 0) === 1;
    for (const { entity, claim } of claims) {
      const started = performance.now();
      if (index.buildClaimed(entity, claim, stopped, pace, () => identifiersReady(identifiers))) {
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
