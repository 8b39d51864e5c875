// Builds claimed entities of a SQLite store's serving index on a thread of its own (index-build-worker.ts): a
// server's build in the background, and a bulk load's, beside the thread that builds SQLite's own indexes.
import type { Entity } from '../../vocabulary/entities.js';
import { startWorker } from '../../worker.js';
import type { BuildPace } from '../serving/entity.js';
import type { Claim } from '../serving/serving-index.js';

export interface IndexBuildInput {
  dbPath: string;
  indexPath: string;
  claims: Claim[];
  /** Set to 1 by the main thread: stop at the next transaction. */
  stop: Int32Array;
  /** How the build divides its work (default IN_SLICES: beside a server). */
  pace?: BuildPace;
  /**
   * A bulk load's: 0 while its thread builds SQLite's identifier table, IDENTIFIERS_READY once that is
   * committed, IDENTIFIERS_LOST when it failed. The records are copied meanwhile; the identifiers wait.
   */
  identifiers?: Int32Array;
}

export const IDENTIFIERS_READY = 1;
export const IDENTIFIERS_LOST = 2;

/** What the thread says: an entity in service, after so many milliseconds; or why it failed. */
export type IndexBuildReport = { built: Entity; ms: number } | { failed: string };

/** A build thread: `done` settles when it has ended, with the entities it put in service. */
export interface IndexBuildThread {
  done: Promise<{ built: Entity[]; failure?: string }>;
  /** Stops it at its next transaction. */
  stop(): void;
  stopped(): boolean;
}

/** Starts a thread for a bulk load's build (see IndexBuildInput.identifiers), given it at the load's end. */
export type BulkIndexBuild = () => EarlyIndexBuild;

/** A build thread's data: where the store and its index are, and its stop flag. */
export type BuildPaths = Pick<IndexBuildInput, 'dbPath' | 'indexPath' | 'stop'>;
/** What it builds: its first message, which it waits for (a thread may be started before it is known). */
export type BuildOrder = Pick<IndexBuildInput, 'claims' | 'pace' | 'identifiers'>;

/**
 * Starts a thread building claimed entities of a SQLite store's serving index (index-build-worker.ts).
 * `keepAlive` false lets the process exit while it runs (a server's build in the background, left to the
 * next process); true holds the process until it ends (a command that waits for it).
 */
export function startIndexBuild(
  input: Omit<IndexBuildInput, 'stop'>,
  keepAlive: boolean,
  onBuilt: (entity: Entity, ms: number) => void = () => {},
): IndexBuildThread {
  const { dbPath, indexPath, ...order } = input;
  return startEarly({ dbPath, indexPath }).build(order, keepAlive, onBuilt);
}

/** A thread started before it is given its build: it loads its modules meanwhile. */
export interface EarlyIndexBuild {
  /** Gives the thread its build (once). */
  build(
    order: BuildOrder,
    keepAlive: boolean,
    onBuilt?: (entity: Entity, ms: number) => void,
  ): IndexBuildThread;
}

/**
 * Starts a build thread that waits for its build. A bulk load starts one as it begins: the thread's start-up
 * (about 0.15 s of loading modules) is then over by the end of the load, when it builds. Until it is given
 * its build, the thread does not keep the process alive.
 */
export function startEarly(paths: Pick<IndexBuildInput, 'dbPath' | 'indexPath'>): EarlyIndexBuild {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = startWorker(import.meta.url, './index-build-worker', {
    ...paths,
    stop,
  } satisfies BuildPaths);
  worker.unref();
  const built: Entity[] = [];
  let failure: string | undefined;
  let reported: (entity: Entity, ms: number) => void = () => {};
  const done = new Promise<{ built: Entity[]; failure?: string }>((resolve) => {
    worker.on('message', (message: IndexBuildReport) => {
      if ('failed' in message) failure = message.failed;
      else {
        built.push(message.built);
        reported(message.built, message.ms);
      }
    });
    worker.on('error', (error) => {
      failure = error.message;
    });
    worker.on('exit', () => resolve({ built, failure }));
  });
  return {
    build: (order, keepAlive, onBuilt = () => {}) => {
      reported = onBuilt;
      if (keepAlive) worker.ref();
      worker.postMessage(order satisfies BuildOrder);
      return { done, stop: () => Atomics.store(stop, 0, 1), stopped: () => Atomics.load(stop, 0) === 1 };
    },
  };
}
