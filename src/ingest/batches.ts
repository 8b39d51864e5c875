// An NDJSON file as batches of records ready to store, with the lines rejected on the way.
import type { Entity, RecordToStore } from '../store/store.js';
import { openNdjson } from './lines.js';
import { Invalid, prepareLine } from './prepare.js';

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
  /** Lines seen so far, blank ones included. */
  lines: number;
  /** Non-blank lines seen so far. */
  read: number;
  bytesRead: number;
  totalBytes: number;
}

/** Where to pick a file up: after `lines` lines, `read` of them non-blank, prepared elsewhere. */
export interface BatchStart {
  lines: number;
  read: number;
}

/**
 * Reads, validates and indexes `file` in this thread. Every batch but the last holds exactly
 * `batchSize` records; the last holds fewer (or none, to carry the final rejections and counts).
 * Lines up to `start.lines` are only counted.
 */
export async function* prepareBatches(
  entity: Entity,
  file: string,
  batchSize: number,
  start: BatchStart = { lines: 0, read: 0 },
): AsyncGenerator<PreparedBatch> {
  const source = await openNdjson(file);
  let line = 0;
  let read = start.read;
  let records: RecordToStore[] = [];
  let rejections: Rejection[] = [];
  const take = (): PreparedBatch => {
    const batch = {
      records,
      rejections,
      lines: line,
      read,
      bytesRead: source.bytesRead(),
      totalBytes: source.totalBytes,
    };
    records = [];
    rejections = [];
    return batch;
  };
  for await (const lines of source.lines()) {
    for (const raw of lines) {
      line++;
      if (line <= start.lines) continue;
      const text = raw.trim();
      if (text === '') continue;
      read++;
      const outcome = prepareLine(entity, text);
      if (outcome instanceof Invalid) {
        rejections.push({ line, path: outcome.path, message: outcome.message });
        continue;
      }
      records.push(outcome);
      if (records.length >= batchSize) yield take();
    }
  }
  yield take();
}
