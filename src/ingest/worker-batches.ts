// Runs prepareBatches in a worker thread and hands its batches to the writer, one acknowledged at a time.
import type { Entity } from '../store/store.js';
import { startWorker } from '../worker.js';
import { type BatchStart, type PreparedBatch, prepareBatches } from './batches.js';
import { type PackedBatch, unpackBatch } from './packed-batch.js';
import type { PrepareWorkerInput } from './prepare-worker.js';

/**
 * Like prepareBatches, with the parsing on another core. Memory stays bounded by the worker's credit.
 * The worker takes a few hundred milliseconds to load its modules; until it is ready, and for at most
 * `inlineBatches` batches, this thread prepares batches itself, then hands the rest of the file over.
 */
export async function* prepareBatchesInWorker(
  entity: Entity,
  file: string,
  batchSize: number,
  inlineBatches = Number.POSITIVE_INFINITY,
): AsyncGenerator<PreparedBatch> {
  const input: PrepareWorkerInput = { entity, file, batchSize };
  const worker = startWorker(import.meta.url, './prepare-worker', input);
  const queue: (PackedBatch | null)[] = [];
  let ready = false;
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  worker.on('message', (message: 'ready' | PackedBatch | null) => {
    if (message === 'ready') ready = true;
    else queue.push(message);
    notify();
  });
  worker.on('error', (error) => {
    failure = error;
    notify();
  });
  worker.on('exit', (code) => {
    exited = true;
    if (code !== 0) failure ??= new Error(`import worker exited with code ${code}`);
    notify();
  });
  try {
    let start: BatchStart = { lines: 0, read: 0 };
    let inline = 0;
    if (inlineBatches > 0) {
      for await (const batch of prepareBatches(entity, file, batchSize)) {
        yield batch;
        if (batch.records.length < batchSize) return; // the last batch: the file is done
        start = { lines: batch.lines, read: batch.read };
        if (ready || ++inline >= inlineBatches) break;
      }
    }
    worker.postMessage(start);
    for (;;) {
      if (failure) throw failure;
      const next = queue.shift();
      if (next === null) return;
      if (next !== undefined) {
        yield unpackBatch(next);
        worker.postMessage('ack');
        continue;
      }
      if (exited) throw new Error('import worker stopped before the end of the file');
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    await worker.terminate();
  }
}
