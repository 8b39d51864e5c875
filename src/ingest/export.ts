// Writes every stored body of an entity as NDJSON, in id order, respecting the stream's backpressure.
import { once } from 'node:events';
import type { Entity, Store } from '../store/store.js';

/** Lines gathered per write: fewer, larger writes without holding much in memory. */
const WRITE_BYTES = 1 << 16;

/** The bodies of the records with these ids, in the order given, each once; missing ids are skipped. */
async function* bodiesOf(store: Store, entity: Entity, ids: readonly string[]): AsyncIterable<string> {
  for (const id of new Set(ids)) {
    const record = await store.getRecord(entity, id);
    if (record) yield record.body;
  }
}

/**
 * Streams NDJSON that `importFile` takes back unchanged: every record, or only those with the
 * given ids (an access request). Leaves `out` open (it may be stdout); resolves with the number
 * of records written.
 * @example const n = await exportTo(store, 'people', process.stdout);
 */
export async function exportTo(
  store: Store,
  entity: Entity,
  out: NodeJS.WritableStream,
  ids?: readonly string[],
): Promise<number> {
  let written = 0;
  let buffer = '';
  const write = async (text: string) => {
    if (!out.write(text)) await once(out as NodeJS.EventEmitter, 'drain');
  };
  for await (const body of ids ? bodiesOf(store, entity, ids) : store.exportBodies(entity)) {
    buffer += `${body}\n`;
    written++;
    if (buffer.length >= WRITE_BYTES) {
      await write(buffer);
      buffer = '';
    }
  }
  if (buffer !== '') await write(buffer);
  return written;
}
