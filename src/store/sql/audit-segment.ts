// The audit log on SQLite packs entries into segments: the entries of one fold (up to SEGMENT_ENTRIES) are one
// row, their keys and their operation, parameters and status named once per segment, their times as
// differences. Pure code: packing, unpacking and the record-id hash the segments' index is keyed by.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Entries per segment at most: a query by record unpacks each segment that may hold it whole. */
export const SEGMENT_ENTRIES = 256;

/**
 * A segment's entries are at most this far apart in time (its first and last entry's times bound it), so a
 * query in time order can stop reading once the segments left start past what it has found. A fold's entries
 * are a fraction of a second apart; entries written out of order (a dead server's journal folded later, a
 * batch of old times) are split where needed.
 */
export const SEGMENT_SPAN_MS = 3_600_000;

/**
 * Where consecutive runs of entries (by their times in milliseconds) begin and end, each run at most
 * SEGMENT_ENTRIES long and SEGMENT_SPAN_MS wide: `[start, end)` pairs covering every entry in order.
 */
export function segmentRuns(atMs: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = 0;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < atMs.length; i++) {
    const at = atMs[i]!;
    const nextLow = Math.min(low, at);
    const nextHigh = Math.max(high, at);
    if (i > start && (i - start >= SEGMENT_ENTRIES || nextHigh - nextLow > SEGMENT_SPAN_MS)) {
      runs.push([start, i]);
      start = i;
      low = at;
      high = at;
    } else {
      low = nextLow;
      high = nextHigh;
    }
  }
  if (start < atMs.length) runs.push([start, atMs.length]);
  return runs;
}

/** The first byte of a body: how the rest is kept. */
const RAW = 0;
const DEFLATED = 1;

/** An entry as a segment gives it back: its time in milliseconds, its place in the segment. */
export interface PackedEntry {
  atMs: number;
  index: number;
  key_id: string;
  operation: string;
  params: string;
  matched: string;
  status: number;
}

/** What a segment keeps of an entry besides its time. */
export type SegmentRow = Pick<PackedEntry, 'key_id' | 'operation' | 'params' | 'matched' | 'status'>;

export interface PackedSegment {
  body: Buffer;
  firstAt: number;
  lastAt: number;
  entries: number;
  /** The distinct key ids of its entries. */
  keys: string[];
  /** The distinct hashes (recordHash) of the record ids its entries disclosed. */
  recordHashes: number[];
}

/** A 32-bit FNV-1a of a record id: the segments' record index is keyed by it, and a hit is checked. */
export function recordHash(recordId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < recordId.length; i++) {
    hash ^= recordId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** An entry's time in milliseconds; a RangeError names a time that is not one. */
export function entryMs(at: string): number {
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) throw new RangeError(`an audit entry's time is not a time: ${at}`);
  return ms;
}

class Writer {
  private buffer = Buffer.allocUnsafe(4096);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** A non-negative integer up to 2^53, seven bits a byte. */
  uint(value: number): void {
    this.room(8);
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.length++] = v;
  }

  /** Any safe integer, zigzag-coded (small magnitudes in few bytes, either sign). */
  int(value: number): void {
    this.uint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.uint(length);
    this.room(length);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

class Reader {
  offset = 0;
  constructor(private readonly buffer: Buffer) {}

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.offset >= this.buffer.length) throw new RangeError('an audit segment ends early');
      const byte = this.buffer[this.offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  text(): string {
    const length = this.uint();
    const end = this.offset + length;
    if (end > this.buffer.length) throw new RangeError('an audit segment ends early');
    const value = this.buffer.toString('utf8', this.offset, end);
    this.offset = end;
    return value;
  }
}

/** Bodies at least this long are deflated: below it, deflate's own header costs more than it saves. */
const DEFLATE_FROM = 256;

/**
 * Packs entries (with their times in milliseconds, `atMs[i]` for `rows[i]`) into one segment's body.
 * @example packSegment(rows, rows.map((r) => entryMs(r.at)))
 */
export function packSegment(rows: readonly SegmentRow[], atMs: readonly number[]): PackedSegment {
  if (rows.length === 0) throw new RangeError('an audit segment holds at least one entry');
  const keys = new Map<string, number>();
  const shapes = new Map<string, number>();
  const shapeList: SegmentRow[] = [];
  const hashes = new Set<number>();
  const keyOf = new Array<number>(rows.length);
  const shapeOf = new Array<number>(rows.length);
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  // Consecutive entries are mostly one key's lookups of one shape: the entry before is checked first.
  let before: SegmentRow | undefined;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (before !== undefined && row.key_id === before.key_id) keyOf[i] = keyOf[i - 1]!;
    else {
      if (!keys.has(row.key_id)) keys.set(row.key_id, keys.size);
      keyOf[i] = keys.get(row.key_id)!;
    }
    if (
      before !== undefined &&
      row.operation === before.operation &&
      row.params === before.params &&
      row.status === before.status
    ) {
      shapeOf[i] = shapeOf[i - 1]!;
    } else {
      const shapeName = `${row.operation}\u0000${row.params}\u0000${row.status}`;
      if (!shapes.has(shapeName)) {
        shapes.set(shapeName, shapes.size);
        shapeList.push(row);
      }
      shapeOf[i] = shapes.get(shapeName)!;
    }
    before = row;
    const { matched } = row;
    if (matched.indexOf(',') < 0) {
      if (matched !== '') hashes.add(recordHash(matched));
    } else for (const id of matched.split(',')) hashes.add(recordHash(id));
    const at = atMs[i]!;
    if (at < firstAt) firstAt = at;
    if (at > lastAt) lastAt = at;
  }
  const w = new Writer();
  w.uint(keys.size);
  for (const key of keys.keys()) w.text(key);
  w.uint(shapeList.length);
  for (const shape of shapeList) {
    w.text(shape.operation);
    w.text(shape.params);
    w.uint(shape.status);
  }
  w.uint(rows.length);
  let previous = 0;
  for (let i = 0; i < rows.length; i++) {
    const at = atMs[i]!;
    w.int(at - previous);
    previous = at;
    w.uint(keyOf[i]!);
    w.uint(shapeOf[i]!);
    w.text(rows[i]!.matched);
  }
  const raw = w.bytes();
  const body =
    raw.length >= DEFLATE_FROM
      ? Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(raw, { level: 1 })])
      : Buffer.concat([Buffer.of(RAW), raw]);
  return { body, firstAt, lastAt, entries: rows.length, keys: [...keys.keys()], recordHashes: [...hashes] };
}

/** Which of a segment's entries to unpack: those at or after `since` (ms), of a key, disclosing a record. */
export interface SegmentFilter {
  since?: number;
  keyId?: string;
  recordId?: string;
}

/** Where `text` occurs in `payload`, in order (overlapping occurrences included). */
function occurrences(payload: Buffer, text: Buffer): number[] {
  const found: number[] = [];
  for (let at = payload.indexOf(text); at >= 0; at = payload.indexOf(text, at + 1)) found.push(at);
  return found;
}

/**
 * A segment's entries that pass `filter` (all without one), in the order they were packed, each with its
 * place among all of them. The others are skipped without being built.
 */
export function unpackSegment(body: Buffer | Uint8Array, filter: SegmentFilter = {}): PackedEntry[] {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const kind = bytes[0];
  if (kind !== DEFLATED && kind !== RAW)
    throw new RangeError(`an audit segment of an unknown kind (${kind})`);
  const payload = kind === DEFLATED ? inflateRawSync(bytes.subarray(1)) : bytes.subarray(1);
  const record = filter.recordId === undefined ? undefined : Buffer.from(filter.recordId, 'utf8');
  // Where the record id occurs: an entry discloses it if one occurrence is a whole item of its list.
  const hits = record === undefined ? [] : occurrences(payload, record);
  if (record !== undefined && hits.length === 0) return [];
  let hit = 0;
  const holds = (start: number, end: number) => {
    while (hit < hits.length && hits[hit]! < start) hit++;
    for (let h = hit; h < hits.length && hits[h]! + record!.length <= end; h++) {
      const at = hits[h]!;
      const whole =
        (at === start || payload[at - 1] === 0x2c) &&
        (at + record!.length === end || payload[at + record!.length] === 0x2c);
      if (whole) return true;
    }
    return false;
  };
  const since = filter.since ?? Number.NEGATIVE_INFINITY;
  const r = new Reader(payload);
  const keys = Array.from({ length: r.uint() }, () => r.text());
  const wantedKey = filter.keyId === undefined ? -1 : keys.indexOf(filter.keyId);
  if (filter.keyId !== undefined && wantedKey < 0) return [];
  const shapes = Array.from({ length: r.uint() }, () => ({
    operation: r.text(),
    params: r.text(),
    status: r.uint(),
  }));
  const count = r.uint();
  const entries: PackedEntry[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    at += r.int();
    const key = r.uint();
    const shape = shapes[r.uint()];
    const key_id = keys[key];
    if (key_id === undefined || shape === undefined) throw new RangeError('an audit segment is corrupt');
    const length = r.uint();
    const start = r.offset;
    r.offset += length;
    if (r.offset > payload.length) throw new RangeError('an audit segment ends early');
    if (at < since || (wantedKey >= 0 && key !== wantedKey)) continue;
    if (record !== undefined && !holds(start, r.offset)) continue;
    entries.push({ atMs: at, key_id, ...shape, matched: payload.toString('utf8', start, r.offset), index });
  }
  return entries;
}
