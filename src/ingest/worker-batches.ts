// Runs prepareBatches in worker threads — each preparing every N-th batch — and hands their batches to
// the writer in file order, each worker ahead by about two full batches' worth of records (run-ahead.ts).
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Entity } from '../vocabulary/entities.js';
import { startWorker } from '../worker.js';
import { type BatchStart, type PreparedBatch, prepareBatches } from './batches.js';
import type { KnownBodiesData } from './known-bodies.js';
import { openNdjson } from './lines.js';
import { type PackedBatch, unpackBatch } from './packed-batch.js';
import type { PrepareWorkerInput } from './prepare-worker.js';

/** One worker thread and the batches it has sent that the writer has not taken yet. */
interface Preparer {
  worker: Worker;
  queue: (PackedBatch | null)[];
}

export interface WorkerBatchOptions {
  /** Batches this thread prepares itself at most while the workers load (default: until they are ready). */
  inlineBatches?: number;
  /**
   * Worker threads. Default: one per core; one for a gzip file, which each would decompress whole; and one
   * for a refresh's file (with `known`), whose lines are mostly a stored body's, hashed and counted unparsed:
   * one thread keeps ahead of the writer, and a second held memory of its own for nothing (a month's refresh
   * of 1,000,000 people peaked at 417–421 MB with one, 523–562 MB with two, in no more time; BENCHMARKS.md,
   * "A refresh's one parse thread").
   */
  workers?: number;
  /** The store's bodies, whose lines are counted unchanged unparsed (see known-bodies.ts). */
  known?: KnownBodiesData;
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
  { inlineBatches = Number.POSITIVE_INFINITY, workers, known }: WorkerBatchOptions = {},
): AsyncGenerator<PreparedBatch> {
  const count =
    workers ??
    (known !== undefined || (await openNdjson(file)).gzip ? 1 : Math.max(1, availableParallelism()));
  const input: PrepareWorkerInput = { entity, file, batchSize, known };
  let ready = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  const preparers: Preparer[] = Array.from({ length: count }, () => {
    const preparer: Preparer = { worker: startWorker(import.meta.url, './prepare-worker', input), queue: [] };
    preparer.worker.on('message', (message: 'ready' | PackedBatch | null) => {
      if (message === 'ready') ready++;
      else preparer.queue.push(message);
      notify();
    });
    preparer.worker.on('error', (error) => {
      failure = error;
      notify();
    });
    preparer.worker.on('exit', (code) => {
      if (code !== 0) failure ??= new Error(`import worker exited with code ${code}`);
      preparer.queue.push(null);
      notify();
    });
    return preparer;
  });
  try {
    let start: BatchStart = { lines: 0, read: 0 };
    if (inlineBatches > 0) {
      const inline = prepareBatches(entity, file, batchSize, undefined, known);
      let taken = 0;
      for (;;) {
        const next = await inline.next();
        if (next.done) return; // the whole file, prepared here
        yield next.value;
        start = { lines: next.value.lines, read: next.value.read };
        if (ready === count || ++taken >= inlineBatches) break;
      }
      await inline.return(undefined);
    }
    preparers.forEach(({ worker }, n) => {
      worker.postMessage({ start, worker: n, workers: count });
    });
    for (let batch = 0; ; ) {
      if (failure) throw failure;
      const preparer = preparers[batch % count]!;
      const next = preparer.queue.shift();
      if (next === null) return; // its next batch would start past the end of the file
      if (next === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      yield unpackBatch(next);
      preparer.worker.postMessage('ack');
      batch++;
    }
  } finally {
    await Promise.all(preparers.map(({ worker }) => worker.terminate()));
  }
}
