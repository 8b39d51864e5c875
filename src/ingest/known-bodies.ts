// Lines byte-for-byte identical to a stored record, known before they are decoded or parsed: most of a
// snapshot refresh (98% of a month's) is unchanged, and the import's reader skips those lines outright.
import { hash } from 'node:crypto';
import type { RecordStore } from '../store/records.js';
import type { Entity } from '../vocabulary/entities.js';
import { lineId } from './line-id.js';

/**
 * What the readers share: the stored bodies' hashes (the first 64 bits of each etag's SHA-1), sorted, in
 * shared memory; and the ids never skipped (an id the files name twice: a later line must win, even when
 * it is the one that matches the store).
 */
export interface KnownBodiesData {
  hashes: BigUint64Array;
  except: readonly string[];
}

/** The first 64 bits of an etag's SHA-1 (`"` + 22 base64url characters + `"`, see prepare.ts). */
function etagBits(etag: string): bigint | undefined {
  if (etag.length !== 24) return undefined;
  const bytes = Buffer.from(etag.slice(1, 12), 'base64url');
  return bytes.length === 8 ? bytes.readBigUInt64BE(0) : undefined;
}

/**
 * The entity's stored bodies' hashes, as the readers of an import take them (with the ids to except, known
 * once the files are read); undefined when none are stored.
 */
export async function knownBodies(
  store: Pick<RecordStore, 'exportEtags'>,
  entity: Entity,
): Promise<Pick<KnownBodiesData, 'hashes'> | undefined> {
  // Gathered in a typed array that doubles, rather than as a bigint[] (a heap object for each of millions).
  let bits = new BigUint64Array(1024);
  let count = 0;
  for await (const page of store.exportEtags(entity)) {
    for (const etag of page) {
      const value = etagBits(etag);
      if (value === undefined) continue;
      if (count === bits.length) {
        const more = new BigUint64Array(bits.length * 2);
        more.set(bits);
        bits = more;
      }
      bits[count++] = value;
    }
  }
  if (count === 0) return undefined;
  const hashes = new BigUint64Array(new SharedArrayBuffer(count * 8));
  hashes.set(bits.subarray(0, count));
  hashes.sort();
  return { hashes };
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;

/**
 * Tells whether a line is exactly the body of a stored record. A match means the line, trimmed as the
 * import trims it, has the SHA-1 of a stored body (64 bits of it compared): the record it would store is
 * the one stored. A line that differs in any byte, or is not trimmed the same way, is read as usual.
 */
export class KnownBodies {
  private readonly except: ReadonlySet<string>;

  constructor(private readonly data: KnownBodiesData) {
    this.except = new Set(data.except);
  }

  has(buffer: Buffer, start: number, end: number): boolean {
    while (start < end && isSpace(buffer[start]!)) start++;
    while (end > start && isSpace(buffer[end - 1]!)) end--;
    if (start === end) return false;
    const digest = hash('sha1', buffer.subarray(start, end), 'buffer');
    if (!this.found(digest.readBigUInt64BE(0))) return false;
    if (this.except.size === 0) return true;
    const id = lineId(buffer, start, end);
    return id !== undefined && !this.except.has(id);
  }

  private found(value: bigint): boolean {
    const { hashes } = this.data;
    let low = 0;
    let high = hashes.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = hashes[middle]!;
      if (at === value) return true;
      if (at < value) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}
