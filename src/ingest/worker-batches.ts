// Runs prepareBatches in worker threads — each preparing every N-th batch — and hands their batches to
// the writer in file order, each worker ahead by about two full batches' worth of records (run-ahead.ts).
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Entity } from '../vocabulary/entities.js';
import { startWorker } from '../worker.js';
import { type BatchShare, type BatchStart, type PreparedBatch, prepareBatches } from './batches.js';
import type { KnownBodiesData } from './known-bodies.js';
import { openNdjson } from './lines.js';
import { type PackedBatch, unpackBatch } from './packed-batch.js';
import type { PrepareWorkerInput } from './prepare-worker.js';

/** One worker thread and the batches it has sent that the writer has not taken yet. */
interface Preparer {
  worker: Worker;
  queue: (PackedBatch | null)[];
}

/** What a parse thread is told once it is ready: which batches are its, and the store's known bodies. */
export interface Assignment {
  share: BatchShare;
  known: KnownBodiesData | undefined;
}

/**
 * The parse threads of one file's import, each listened to from its start: started by the import, or
 * earlier (startParseThreads), so that they load their modules while the caller does other work.
 */
export class ParseThreads {
  readonly preparers: Preparer[];
  /** Threads that have loaded their modules. */
  ready = 0;
  failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly input: PrepareWorkerInput,
    count: number,
  ) {
    const notify = () => this.wake?.();
    this.preparers = Array.from({ length: count }, () => {
      const preparer: Preparer = {
        worker: startWorker(import.meta.url, './prepare-worker', input),
        queue: [],
      };
      preparer.worker.on('message', (message: 'ready' | PackedBatch | null) => {
        if (message === 'ready') this.ready++;
        else preparer.queue.push(message);
        notify();
      });
      preparer.worker.on('error', (error) => {
        this.failure = error;
        notify();
      });
      preparer.worker.on('exit', (code) => {
        if (code !== 0) this.failure ??= new Error(`import worker exited with code ${code}`);
        preparer.queue.push(null);
        notify();
      });
      return preparer;
    });
  }

  /** Settles when any thread next says something. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  async terminate(): Promise<void> {
    await Promise.all(this.preparers.map(({ worker }) => worker.terminate()));
  }
}

/** Parse threads: one per core, one for a gzip file (which each would decompress whole). */
async function threadCount(file: string): Promise<number> {
  return (await openNdjson(file)).gzip ? 1 : Math.max(1, availableParallelism());
}

/**
 * Starts a file's parse threads before its import (give them to it as `threads`): a refresh starts them
 * before it reads the store, and they are ready when its import begins.
 */
export async function startParseThreads(
  entity: Entity,
  file: string,
  batchSize: number,
): Promise<ParseThreads> {
  return new ParseThreads({ entity, file, batchSize }, await threadCount(file));
}

export interface WorkerBatchOptions {
  /** Batches this thread prepares itself at most while the workers load (default: until they are ready). */
  inlineBatches?: number;
  /** Worker threads (default: one per core, one for a gzip file, which each would decompress whole). */
  workers?: number;
  /** The store's bodies, whose lines are counted unchanged unparsed (see known-bodies.ts). */
  known?: KnownBodiesData;
  /** Threads started already for this file and batch size (startParseThreads). */
  threads?: ParseThreads;
}

/**
 * Like prepareBatches, with the parsing on other cores, each worker ahead by about two full batches' worth
 * of records (many batches of a refresh, whose unchanged lines are dropped), so memory stays bounded. A
 * worker takes a few hundred milliseconds to load its modules; until they are ready, and for at most
 * `inlineBatches` batches, this thread prepares batches itself, then hands the rest of the file over.
 */
export async function* prepareBatchesInWorker(
  entity: Entity,
  file: string,
  batchSize: number,
  { inlineBatches = Number.POSITIVE_INFINITY, workers, known, threads: started }: WorkerBatchOptions = {},
): AsyncGenerator<PreparedBatch> {
  const threads =
    started ?? new ParseThreads({ entity, file, batchSize }, workers ?? (await threadCount(file)));
  const { preparers } = threads;
  const count = preparers.length;
  try {
    let start: BatchStart = { lines: 0, read: 0 };
    if (inlineBatches > 0 && threads.ready < count) {
      const inline = prepareBatches(entity, file, batchSize, undefined, known);
      let taken = 0;
      for (;;) {
        const next = await inline.next();
        if (next.done) return; // the whole file, prepared here
        yield next.value;
        start = { lines: next.value.lines, read: next.value.read };
        if (threads.ready === count || ++taken >= inlineBatches) break;
      }
      await inline.return(undefined);
    }
    preparers.forEach(({ worker }, n) => {
      worker.postMessage({ share: { start, worker: n, workers: count }, known } satisfies Assignment);
    });
    for (let batch = 0; ; ) {
      if (threads.failure) throw threads.failure;
      const preparer = preparers[batch % count]!;
      const next = preparer.queue.shift();
      if (next === null) return; // its next batch would start past the end of the file
      if (next === undefined) {
        await threads.next();
        continue;
      }
      yield unpackBatch(next);
      preparer.worker.postMessage('ack');
      batch++;
    }
  } finally {
    await threads.terminate();
  }
}
