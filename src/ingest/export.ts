// Writes every stored body of an entity as NDJSON, in id order, respecting the stream's backpressure.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RecordStore } from '../store/records.js';
import type { Entity } from '../vocabulary/entities.js';

/** Lines gathered per write: fewer, larger writes without holding much in memory. */
const WRITE_BYTES = 1 << 16;

/** The bodies of the records with these ids, in the order given, each once; missing ids are skipped. */
async function* bodiesOf(store: RecordStore, entity: Entity, ids: readonly string[]): AsyncIterable<string> {
  for (const id of new Set(ids)) {
    const record = await store.getRecord(entity, id);
    if (record) yield record.body;
  }
}

/** NDJSON text in chunks of about WRITE_BYTES, counting the records into `counter`. */
async function* ndjson(bodies: AsyncIterable<string>, counter: { written: number }): AsyncIterable<string> {
  let buffer = '';
  for await (const body of bodies) {
    buffer += `${body}\n`;
    counter.written++;
    if (buffer.length >= WRITE_BYTES) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer !== '') yield buffer;
}

/**
 * Streams NDJSON that `importFile` takes back unchanged: every record, or only those with the
 * given ids (an access request). Leaves `out` open (it may be stdout); resolves with the number
 * of records written. When `out` fails (a reader that closed the pipe: EPIPE) reading stops at
 * once and the promise rejects with that error.
 * @example const n = await exportTo(store, 'people', process.stdout);
 */
export async function exportTo(
  store: RecordStore,
  entity: Entity,
  out: NodeJS.WritableStream,
  ids?: readonly string[],
): Promise<number> {
  const counter = { written: 0 };
  const bodies = ids ? bodiesOf(store, entity, ids) : store.exportBodies(entity);
  await pipeline(Readable.from(ndjson(bodies, counter)), out, { end: false });
  return counter.written;
}
