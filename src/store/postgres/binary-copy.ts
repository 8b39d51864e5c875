// COPY ... FROM STDIN (FORMAT binary): rows as length-prefixed bytes, so record text needs no escaping at all.
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

// 'PGCOPY\n\377\r\n\0', then a flags word and a header-extension length, both zero.
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1');
const CHUNK_BYTES = 1 << 20;
// A connection's buffer is kept for its next COPY unless it grew past this.
const KEEP_BYTES = 32 << 20;
const TEXT_OID = 25;
const INT4_OID = 23;
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

// Buffer#write's own UTF-8 path, without the argument juggling that costs more than encoding a short
// identifier; present on every Buffer since Node 0.x though left out of the typings.
type Utf8Writable = Buffer & { utf8Write(value: string, offset: number): number };

/**
 * Encodes rows in PostgreSQL's binary COPY format into one growing buffer, handing out ~1 MiB chunks as
 * they fill so the server parses one while the next is encoded. Field types must match the columns.
 * @example encoder.row(3).int2(kind).text(value).int8(rid)
 */
export class BinaryCopyEncoder {
  private rowCount = 0;
  private start = 0;
  private pos = 0;
  private readonly full: Buffer[] = [];

  /** `buffer` may be reused once every chunk handed out from it has been written. */
  constructor(private buffer: Buffer = Buffer.allocUnsafe(2 * CHUNK_BYTES)) {
    this.reserve(SIGNATURE.length);
    this.pos = SIGNATURE.copy(this.buffer, 0);
  }

  /** Starts a row of `fields` values, to be followed by exactly that many value calls. */
  row(fields: number): this {
    if (this.pos - this.start >= CHUNK_BYTES) this.cut();
    this.rowCount++;
    this.reserve(2);
    this.pos = this.buffer.writeInt16BE(fields, this.pos);
    return this;
  }

  text(value: string): this {
    this.reserve(4 + value.length * 3); // UTF-8 needs at most 3 bytes per UTF-16 code unit
    const bytes = (this.buffer as Utf8Writable).utf8Write(value, this.pos + 4);
    this.buffer.writeInt32BE(bytes, this.pos);
    this.pos += 4 + bytes;
    return this;
  }

  /** A one-dimensional text[] without nulls, in array_recv's layout. */
  textArray(values: readonly string[]): this {
    // Room for the worst case up front, so the buffer cannot move before the length word is filled in.
    this.reserve(values.reduce((bytes, value) => bytes + 4 + value.length * 3, 4 + 20));
    const lengthAt = this.pos;
    let at = this.buffer.writeInt32BE(values.length === 0 ? 0 : 1, lengthAt + 4); // dimensions
    at = this.buffer.writeInt32BE(0, at); // no nulls
    at = this.buffer.writeUInt32BE(TEXT_OID, at);
    if (values.length > 0) at = this.buffer.writeInt32BE(1, this.buffer.writeInt32BE(values.length, at));
    this.pos = at;
    for (const value of values) this.text(value);
    this.buffer.writeInt32BE(this.pos - lengthAt - 4, lengthAt);
    return this;
  }

  /** A one-dimensional int4[] without nulls, in array_recv's layout (each value a 32-bit signed integer). */
  int4Array(values: readonly number[]): this {
    const bytes = values.length === 0 ? 12 : 20 + 8 * values.length;
    this.reserve(4 + bytes);
    let at = this.buffer.writeInt32BE(bytes, this.pos);
    at = this.buffer.writeInt32BE(values.length === 0 ? 0 : 1, at); // dimensions
    at = this.buffer.writeInt32BE(0, at); // no nulls
    at = this.buffer.writeUInt32BE(INT4_OID, at);
    if (values.length > 0) at = this.buffer.writeInt32BE(1, this.buffer.writeInt32BE(values.length, at));
    for (const value of values) at = this.buffer.writeInt32BE(value, this.buffer.writeInt32BE(4, at));
    this.pos = at;
    return this;
  }

  bytea(value: Buffer): this {
    this.reserve(4 + value.length);
    this.pos = this.buffer.writeInt32BE(value.length, this.pos);
    this.pos += value.copy(this.buffer, this.pos);
    return this;
  }

  int2(value: number): this {
    this.reserve(6);
    this.pos = this.buffer.writeInt16BE(value, this.buffer.writeInt32BE(2, this.pos));
    return this;
  }

  /** A bigint column from a safe integer: rids stay far below 2^53, and Numbers cost less than BigInts. */
  int8(value: number): this {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
    this.reserve(12);
    const at = this.buffer.writeInt32BE(8, this.pos);
    this.buffer.writeInt32BE(Math.floor(value / 2 ** 32), at);
    this.pos = this.buffer.writeUInt32BE(value >>> 0, at + 4);
    return this;
  }

  /** A timestamptz from milliseconds since the Unix epoch (PostgreSQL counts microseconds from 2000). */
  timestamptz(ms: number): this {
    return this.int8((ms - POSTGRES_EPOCH_MS) * 1000);
  }

  get rows(): number {
    return this.rowCount;
  }

  /** Chunks completed since the last call. */
  take(): Buffer[] {
    return this.full.splice(0);
  }

  /** The remaining bytes with the end-of-data marker, and the buffer, for reuse once they are written. */
  finish(): { chunks: Buffer[]; buffer: Buffer } {
    this.reserve(2);
    this.pos = this.buffer.writeInt16BE(-1, this.pos);
    this.cut();
    return { chunks: this.take(), buffer: this.buffer };
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    // Chunks already handed out keep the old buffer alive until written; only the pending part moves.
    const pending = this.pos - this.start;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, pending + bytes));
    this.buffer.copy(grown, 0, this.start, this.pos);
    this.buffer = grown;
    this.start = 0;
    this.pos = pending;
  }

  private cut(): void {
    this.full.push(this.buffer.subarray(this.start, this.pos));
    this.start = this.pos;
  }
}

const copyStatement = (target: string) => copyFrom(`COPY ${target} FROM STDIN (FORMAT binary)`);

/** Sends the rows an encoder holds to `COPY <target> FROM STDIN (FORMAT binary)`. */
export async function copyEncoded(
  client: pg.PoolClient,
  target: string,
  encoder: BinaryCopyEncoder,
): Promise<void> {
  await pipeline(encoder.finish().chunks, client.query(copyStatement(target)));
}

const spareBuffers = new WeakMap<pg.PoolClient, Buffer>();

/**
 * Streams rows into `COPY <target> FROM STDIN (FORMAT binary)`; `encode` writes each row with the encoder.
 * Each connection reuses its encoding buffer from one COPY to the next.
 * @example await copyBinary(client, 'people_ident (kind, value, rid)', rows, (e, r) => e.row(3).int2(r.kind).text(r.value).int8(r.rid))
 */
export async function copyBinary<T>(
  client: pg.PoolClient,
  target: string,
  rows: Iterable<T>,
  encode: (encoder: BinaryCopyEncoder, row: T) => void,
): Promise<void> {
  const encoder = new BinaryCopyEncoder(spareBuffers.get(client));
  spareBuffers.delete(client);
  let used: Buffer | undefined;
  function* chunks(): Generator<Buffer> {
    for (const row of rows) {
      encode(encoder, row);
      yield* encoder.take();
    }
    const { chunks, buffer } = encoder.finish();
    used = buffer;
    yield* chunks;
  }
  await pipeline(chunks(), client.query(copyStatement(target)));
  // The COPY has completed, so every chunk has been sent and the buffer is free again.
  if (used && used.length <= KEEP_BYTES) spareBuffers.set(client, used);
}
