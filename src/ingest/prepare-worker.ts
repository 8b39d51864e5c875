// Worker thread: prepares batches (parse, validate, index) while the main thread writes the previous ones.
import { parentPort, workerData } from 'node:worker_threads';
import type { Entity } from '../vocabulary/entities.js';
import { type BatchShare, prepareBatches } from './batches.js';
import type { KnownBodiesData } from './known-bodies.js';
import { packBatch, transferList } from './packed-batch.js';
import { batchWeight, fullBatches, RunAhead } from './run-ahead.js';

export interface PrepareWorkerInput {
  entity: Entity;
  file: string;
  batchSize: number;
  known?: KnownBodiesData;
}

/**
 * Full batches prepared ahead of the writer: enough to keep both threads busy, few enough to bound memory.
 * Counted by what the batches hold (RunAhead): a refresh's batches, mostly unchanged lines, hold few
 * records, and the thread reads on while the writer's transactions run.
 */
const AHEAD = 2;

const port = parentPort!;
const { entity, file, batchSize, known } = workerData as PrepareWorkerInput;
const ahead = new RunAhead(fullBatches(AHEAD, batchSize));
let share: BatchShare | undefined;
let wake: (() => void) | undefined;
/** 'ack': the writer took a batch. A BatchShare: where to begin and which batches, once this thread is ready. */
const onMessage = (message: 'ack' | BatchShare) => {
  if (message === 'ack') ahead.taken();
  else share = message;
  wake?.();
};
port.on('message', onMessage);

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see worker-batches.ts).
async function run() {
  port.postMessage('ready');
  while (share === undefined) await new Promise<void>((resolve) => (wake = resolve));
  for await (const batch of prepareBatches(entity, file, batchSize, share, known)) {
    while (!ahead.open) await new Promise<void>((resolve) => (wake = resolve));
    ahead.sent(batchWeight(batch));
    const packed = packBatch(batch);
    port.postMessage(packed, transferList(packed));
  }
  port.postMessage(null);
  port.off('message', onMessage);
}

void run();
