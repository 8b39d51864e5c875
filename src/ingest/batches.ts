// An NDJSON file as batches of records ready to store, with the lines rejected on the way.

import type { RecordToStore } from '../store/records.js';
import type { Entity } from '../vocabulary/entities.js';
import { KnownBodies, type KnownBodiesData } from './known-bodies.js';
import { isBlank, LineSplitter, openNdjson } from './lines.js';
import { Invalid, MAX_RECORD_BYTES, prepareLine, TOO_LARGE } from './prepare.js';

export interface Rejection {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  /** JSON path of the offending value, e.g. `$.emails.work[0].value`; `$` for the whole line. */
  path: string;
  message: string;
}

/** Up to `batchSize` records, the lines rejected since the previous batch, and where the reader is. */
export interface PreparedBatch {
  records: RecordToStore[];
  rejections: Rejection[];
  /** Lines of this batch the same as a stored body (with `known`): counted, not parsed. */
  unchanged: number;
  /** Lines seen so far, blank ones included. */
  lines: number;
  /** Non-blank lines seen so far. */
  read: number;
  bytesRead: number;
  totalBytes: number;
}

/** Where to pick a file up: after `lines` lines (a whole number of batches), `read` of them non-blank. */
export interface BatchStart {
  lines: number;
  read: number;
}

/** Which batches a reader prepares: of the batches after `start`, those numbered `worker` modulo `workers`. */
export interface BatchShare {
  start: BatchStart;
  worker: number;
  workers: number;
}

const WHOLE: BatchShare = { start: { lines: 0, read: 0 }, worker: 0, workers: 1 };

/**
 * Reads, validates and indexes `file`. Batch k holds the records of lines k·batchSize + 1 to
 * (k + 1)·batchSize (so at most `batchSize`), the lines of that range it rejected, and the counts at its
 * end; a file whose line count is a multiple of `batchSize` ends with that full batch, any other file
 * with a shorter one (an empty file: one empty batch, to carry the counts). With a `share`, lines up to
 * `share.start` are skipped and only this reader's batches are prepared: every reader still counts every
 * line (without decoding the others'), so batches and counts are the same however the work is shared.
 * With `known`, a line the same as a stored body is counted in `unchanged` and not parsed.
 */
export async function* prepareBatches(
  entity: Entity,
  file: string,
  batchSize: number,
  share: BatchShare = WHOLE,
  known?: KnownBodiesData,
): AsyncGenerator<PreparedBatch> {
  const source = await openNdjson(file);
  const stored = known && new KnownBodies(known);
  const { start, worker, workers } = share;
  let line = 0;
  let read = start.read;
  let records: RecordToStore[] = [];
  let rejections: Rejection[] = [];
  let unchanged = 0;
  const ready: PreparedBatch[] = [];
  const take = () => {
    ready.push({
      records,
      rejections,
      unchanged,
      lines: line,
      read,
      bytesRead: source.bytesRead(),
      totalBytes: source.totalBytes,
    });
    records = [];
    rejections = [];
    unchanged = 0;
  };
  const mine = () => Math.floor((line - 1 - start.lines) / batchSize) % workers === worker;
  const onLine = (buffer: Buffer, from: number, to: number) => {
    line++;
    if (line <= start.lines) return;
    if (!mine()) {
      if (!isBlank(buffer, from, to)) read++;
      return;
    }
    if (stored?.has(buffer, from, to)) {
      read++;
      unchanged++;
      if ((line - start.lines) % batchSize === 0) take();
      return;
    }
    const text = buffer.toString('utf8', from, to).trim();
    if (text !== '') {
      read++;
      const outcome = prepareLine(entity, text);
      if (outcome instanceof Invalid) rejections.push({ line, path: outcome.path, message: outcome.message });
      else records.push(outcome);
    }
    if ((line - start.lines) % batchSize === 0) take();
  };
  const onLongLine = () => {
    line++;
    if (line <= start.lines) return;
    read++;
    if (mine()) rejections.push({ line, path: '$', message: TOO_LARGE });
    if ((line - start.lines) % batchSize === 0 && mine()) take();
  };
  const lines = new LineSplitter(onLine, MAX_RECORD_BYTES, onLongLine);
  for await (const chunk of source.chunks()) {
    lines.push(chunk);
    yield* ready.splice(0);
  }
  lines.end();
  // The last, shorter batch (or the only one of an empty file), when it is this reader's.
  const last = line - start.lines;
  if ((last % batchSize !== 0 || last === 0) && (last === 0 ? worker === 0 : mine())) take();
  yield* ready.splice(0);
}
