// A prepared batch flattened for postMessage: one string and two typed arrays instead of thousands of
// small objects, which cost the receiving (writing) thread more to deserialise than SQLite to store.

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

/** Characters per packed string, well under V8's limit on a string's length (2^29 - 24). */
const TEXT_LIMIT = 1 << 26;

export interface PackedBatch extends Omit<PreparedBatch, 'records'> {
  /**
   * Per record: body, id, etag, its search facts as JSON ('' when not worked out), then each identifier
   * value, concatenated; a record never spans two.
   */
  texts: string[];
  /** How many records each of `texts` holds. */
  recordsPerText: number[];
  /** End offset of each piece within its text, in the order above. */
  ends: Uint32Array;
  /**
   * Per record: its identifier count, then each identifier's kind (index into KINDS). 32 bits wide: a
   * record may carry hundreds of addresses, each indexed twice (plain and hashed).
   */
  shape: Uint32Array;
}

/**
 * Flattens a batch; the typed arrays' buffers can be transferred rather than copied.
 * `textLimit` is only lowered by tests.
 */
export function packBatch({ records, ...rest }: PreparedBatch, textLimit = TEXT_LIMIT): PackedBatch {
  const texts: string[] = [];
  const recordsPerText: number[] = [];
  const ends: number[] = [];
  const shape: number[] = [];
  let pieces: string[] = [];
  let length = 0;
  let inText = 0;
  const flush = () => {
    texts.push(pieces.join(''));
    recordsPerText.push(inText);
    pieces = [];
    length = 0;
    inText = 0;
  };
  const add = (piece: string) => {
    pieces.push(piece);
    length += piece.length;
    ends.push(length);
  };
  for (const { body, id, etag, identifiers, facts } of records) {
    if (inText > 0 && length + body.length > textLimit) flush();
    inText++;
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
  if (inText > 0) flush();
  return { ...rest, texts, recordsPerText, ends: Uint32Array.from(ends), shape: Uint32Array.from(shape) };
}

/** The batch back as records; bodies are slices of the texts, which V8 does not copy. */
export function unpackBatch({ texts, recordsPerText, ends, shape, ...rest }: PackedBatch): PreparedBatch {
  const records: RecordToStore[] = [];
  let piece = 0;
  let s = 0;
  texts.forEach((text, t) => {
    let start = 0;
    const next = () => {
      const end = ends[piece++]!;
      const slice = text.slice(start, end);
      start = end;
      return slice;
    };
    for (let r = 0; r < recordsPerText[t]!; r++) {
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
