// A prepared batch flattened for postMessage: buffers of UTF-8 and of offsets instead of thousands of small
// objects, which cost the receiving (writing) thread more to deserialise than SQLite to store.

import type { RecordToStore } from '../store/records.js';
import type { SearchFacts } from '../store/search-facts.js';
import type { IdentifierKind } from '../vocabulary/entities.js';
import type { PreparedBatch } from './batches.js';

const KINDS = [
  'linkedin',
  'work_email',
  'personal_email',
  'domain',
  'abn',
  'work_email_sha256',
  'personal_email_sha256',
  'name_at_company_id',
  'name_at_domain',
  'name_at_linkedin',
  'name_at_company_name',
] as const;
// Fails to compile when an identifier kind is added to the store but not here.
const everyKind: Exclude<IdentifierKind, (typeof KINDS)[number]> extends never ? true : never = true;
void everyKind;

const KIND_INDEX = new Map<string, number>(KINDS.map((kind, index) => [kind, index]));

/** Bytes per packed chunk, well under what a Buffer and its 32-bit offsets hold. */
const CHUNK_LIMIT = 1 << 28;

export interface PackedBatch extends Omit<PreparedBatch, 'records'> {
  /**
   * Per record: body, id, etag, its search facts as JSON ('' when not worked out), then each identifier
   * value, as UTF-8, concatenated; a record never spans two chunks. Bytes rather than one joined string: a
   * transferred buffer is neither copied nor held on either thread's heap, and a single character beyond
   * Latin-1 made a joined string two bytes a character.
   */
  chunks: Uint8Array[];
  /** How many records each of `chunks` holds. */
  recordsPerChunk: number[];
  /** End offset of each piece within its chunk, in bytes, in the order above. */
  ends: Uint32Array;
  /**
   * Per record: its identifier count, then each identifier's kind (index into KINDS). 32 bits wide: a
   * record may carry hundreds of addresses, each indexed twice (plain and hashed).
   */
  shape: Uint32Array;
}

/** The buffers of a packed batch, to transfer rather than copy. */
export const transferList = (packed: PackedBatch): ArrayBuffer[] => [
  ...packed.chunks.map((chunk) => chunk.buffer as ArrayBuffer),
  packed.ends.buffer as ArrayBuffer,
  packed.shape.buffer as ArrayBuffer,
];

/**
 * Flattens a batch into buffers of its own, which can be transferred. Strings go as UTF-8, as SQLite and
 * the serving index store them. `chunkLimit` is only lowered by tests.
 */
export function packBatch({ records, ...rest }: PreparedBatch, chunkLimit = CHUNK_LIMIT): PackedBatch {
  const chunks: Uint8Array[] = [];
  const recordsPerChunk: number[] = [];
  const ends: number[] = [];
  const shape: number[] = [];
  let pieces: string[] = [];
  let bytes: number[] = [];
  let length = 0;
  let inChunk = 0;
  const flush = () => {
    const chunk = Buffer.allocUnsafeSlow(length);
    let at = 0;
    pieces.forEach((piece, i) => {
      at += chunk.write(piece, at, bytes[i]!, 'utf8');
    });
    chunks.push(chunk);
    recordsPerChunk.push(inChunk);
    pieces = [];
    bytes = [];
    length = 0;
    inChunk = 0;
  };
  const add = (piece: string) => {
    const size = Buffer.byteLength(piece, 'utf8');
    pieces.push(piece);
    bytes.push(size);
    length += size;
    ends.push(length);
  };
  for (const { body, id, etag, identifiers, facts } of records) {
    if (inChunk > 0 && length + body.length > chunkLimit) flush();
    inChunk++;
    add(body);
    add(id);
    add(etag);
    add(facts ? JSON.stringify(facts) : '');
    shape.push(identifiers.length);
    for (const { kind, value } of identifiers) {
      const index = KIND_INDEX.get(kind);
      if (index === undefined) throw new Error(`unknown identifier kind: ${kind}`);
      add(value);
      shape.push(index);
    }
  }
  if (inChunk > 0) flush();
  return { ...rest, chunks, recordsPerChunk, ends: Uint32Array.from(ends), shape: Uint32Array.from(shape) };
}

/** The batch back as records, each string decoded from its chunk. */
export function unpackBatch({ chunks, recordsPerChunk, ends, shape, ...rest }: PackedBatch): PreparedBatch {
  const records: RecordToStore[] = [];
  let piece = 0;
  let s = 0;
  chunks.forEach((bytes, c) => {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let start = 0;
    const next = () => {
      const end = ends[piece++]!;
      const text = chunk.toString('utf8', start, end);
      start = end;
      return text;
    };
    for (let r = 0; r < recordsPerChunk[c]!; r++) {
      const body = next();
      const id = next();
      const etag = next();
      const facts = next();
      const count = shape[s++]!;
      const identifiers = new Array<{ kind: IdentifierKind; value: string }>(count);
      for (let i = 0; i < count; i++) identifiers[i] = { kind: KINDS[shape[s++]!]!, value: next() };
      const record: RecordToStore = { id, body, etag, identifiers };
      if (facts !== '') record.facts = JSON.parse(facts) as SearchFacts;
      records.push(record);
    }
  });
  return { ...rest, records };
}
