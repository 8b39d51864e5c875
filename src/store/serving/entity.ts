// An entity's part of the serving index: how a record is encoded and read, how a change is applied, and
// how the whole part is built from the store of record with sorted reads and writes.
import type { Database, RootDatabase } from 'lmdb';
import type { Entity } from '../../vocabulary/entities.js';
import type { ServedRecord } from '../records.js';
import { CROWDED, listedIds, MAX_LISTED, withId, withoutId } from './id-lists.js';
import type { IndexSource, RecordChange, SourceRow } from './source.js';

export interface EntityDbs {
  records: Database<Buffer, string>;
  idents: Database<string, string>;
}

/**
 * The longest key kept, in UTF-8 bytes: LMDB's default maximum (4,026 with the 16 KiB pages of this
 * index, whose reads fail past it with "String does not fit in target buffer"). Lookups refuse identifiers anywhere
 * near it (src/identifiers/key-bytes.ts), and imports no longer index them; an identifier this long that a
 * store holds from before is left out of the index, so that the index can still be built and repaired.
 */
export const MAX_KEY_BYTES = 1978;

/** True when a key fits in LMDB (a UTF-16 code unit is at most 3 UTF-8 bytes). */
export const fitsKey = (key: string) =>
  key.length * 3 <= MAX_KEY_BYTES || Buffer.byteLength(key) <= MAX_KEY_BYTES;

/**
 * The index keys of an identifier list, those that fit: a JSON array of `[kind code, value]` pairs (as
 * SQLite's rows give it) or of `'<kind code>:<value>'` keys (as PostgreSQL's `idents` column holds them).
 */
const identKeys = (idents: string) =>
  (JSON.parse(idents) as Array<[number, string] | string>)
    .map((ident) => (typeof ident === 'string' ? ident : `${ident[0]}:${ident[1]}`))
    .filter(fitsKey);

/**
 * Bytes per slab that read records are copied into. Node's own pool (8 KiB) holds three records of a typical
 * 2 KB before it allocates a new ArrayBuffer, which cost about 1 µs a record read; a slab of this size holds
 * thirty. A record kept alive keeps its slab alive: nothing holds a read record longer than its response.
 */
const SLAB_BYTES = 64 * 1024;
/** Records larger than this get a buffer of their own, so that a slab is not left mostly unused. */
const SLAB_LARGEST = SLAB_BYTES / 4;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabUsed = 0;

/** `value`'s bytes from `start` on, copied into the current slab (a new one when it is full). */
function copyOut(value: Buffer, start: number): Buffer {
  const length = value.length - start;
  if (length > SLAB_LARGEST) {
    const own = Buffer.allocUnsafe(length);
    value.copy(own, 0, start);
    return own;
  }
  if (slabUsed + length > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  value.copy(slab, slabUsed, start);
  const out = slab.subarray(slabUsed, slabUsed + length);
  // The next record starts 8-byte aligned, as Node's pool aligns them.
  slabUsed += (length + 7) & ~7;
  return out;
}

/**
 * The record a value holds. `value` is lmdb's shared read buffer (getBinaryFast: no allocation), valid
 * until the next read, so the body is copied out, into a slab shared with the records read after it.
 */
export function served(id: string, value: Buffer): ServedRecord {
  const etagEnd = 1 + value[0]!;
  const bodyStart = etagEnd + 4 + value.readUInt32LE(etagEnd);
  return { id, etag: value.toString('latin1', 1, etagEnd), body: copyOut(value, bodyStart) };
}

/**
 * What a lookup serves for one key from an entity's part of an index: the record of an id, or the records
 * carrying an identifier (`kindCode:value`), at most `limit`, in id order; undefined when the identifier is
 * carried by too many records to list (read the store of record instead).
 */
export function readRecords(
  { records, idents }: EntityDbs,
  kind: string,
  value: string,
  limit: number,
  kindCode: number,
): ServedRecord[] | undefined {
  if (kind === 'id') {
    const found = limit > 0 && fitsKey(value) ? records.getBinaryFast(value) : undefined;
    return found ? [served(value, found)] : [];
  }
  const key = `${kindCode}:${value}`;
  // A key too long for LMDB is never put in it: nothing carries such an identifier.
  const list = fitsKey(key) ? idents.get(key) : undefined;
  if (list === undefined) return [];
  if (list === CROWDED) return undefined;
  const out: ServedRecord[] = [];
  for (const id of listedIds(list, limit)) {
    const found = records.getBinaryFast(id);
    if (found) out.push(served(id, found));
  }
  return out;
}

/** Replaces (or removes) one record and its identifiers. */
export function applyChange({ records, idents }: EntityDbs, { id, row }: RecordChange): void {
  const before = records.getBinary(id);
  const oldIdents = before ? identsOf(before) : '[]';
  const newIdents = row?.idents ?? '[]';
  if (oldIdents !== newIdents) {
    const now = new Set(identKeys(newIdents));
    const old = new Set(identKeys(oldIdents));
    for (const key of old) {
      if (now.has(key)) continue;
      const list = idents.get(key);
      const rest = list === undefined ? undefined : withoutId(list, id);
      if (rest === undefined) idents.removeSync(key);
      else if (rest !== list) idents.putSync(key, rest);
    }
    for (const key of now) {
      if (old.has(key)) continue;
      const list = idents.get(key);
      const more = withId(list, id);
      if (more !== list) idents.putSync(key, more);
    }
  }
  if (row) records.putSync(id, encodeRow(row));
  else if (before) records.removeSync(id);
}

/** How a build divides its work into write transactions. */
export interface BuildPace {
  /** Rows read from the store of record at a time. */
  recordPage: number;
  /** Identifier rows read at a time; more than MAX_LISTED, so a page always ends a list or crowds it. */
  identPage: number;
  /** Pages go on in one transaction until it has taken this long (0: one page per transaction). */
  sliceMs: number;
}

/**
 * A build that holds the process (a command, or a store's opening): large pages, a page per transaction.
 * Each commit maps a few hundred kilobytes of the index into the process (the kernel maps the neighbours
 * of each page LMDB reads), counted in its resident memory (as RssFile): pages of 5,000 records and 20,000
 * identifiers added 160 MB of it to a 1,000,000-person import. Pages of a second's work instead held 300 MB
 * more in LMDB's dirty pages and this thread's heap. An identifier row is small (its list a few bytes per
 * id): 200,000 of them take about 20 MB of heap.
 */
export const AT_ONCE: BuildPace = { recordPage: 10_000, identPage: 200_000, sliceMs: 0 };
/**
 * A bulk load's build on a thread of its own, beside the loading thread building SQLite's indexes (and its
 * sorter's memory): pages a fifth of AT_ONCE's, so that the two together stay within an import's memory.
 */
export const BESIDE_A_LOAD: BuildPace = { recordPage: 2_000, identPage: 40_000, sliceMs: 0 };
/**
 * A build on a thread of its own beside a server: each transaction at most about 20 ms, so that the server's
 * own writes (which wait for the index's write lock) are never held long.
 */
export const IN_SLICES: BuildPace = { recordPage: 500, identPage: 4_000, sliceMs: 20 };

/** Record value: [etag length: u8][etag][idents length: u32 LE][idents JSON][body], all UTF-8. */
export function encodeRow(row: SourceRow): Buffer {
  const etagBytes = Buffer.byteLength(row.etag, 'latin1');
  const identsBytes = Buffer.byteLength(row.idents);
  const bodyBytes = Buffer.byteLength(row.body);
  const value = Buffer.allocUnsafe(5 + etagBytes + identsBytes + bodyBytes);
  value[0] = etagBytes;
  value.write(row.etag, 1, 'latin1');
  value.writeUInt32LE(identsBytes, 1 + etagBytes);
  value.write(row.idents, 5 + etagBytes, 'utf8');
  value.write(row.body, 5 + etagBytes + identsBytes, 'utf8');
  return value;
}

/** The identifier list a record value holds. */
export function identsOf(value: Buffer): string {
  const etagEnd = 1 + value[0]!;
  return value.toString('utf8', etagEnd + 4, etagEnd + 4 + value.readUInt32LE(etagEnd));
}

/** MDB_APPEND: a key past the part's last goes in without a search down the tree, and filled pages stay full. */
const APPEND = { append: true } as const;

/**
 * Puts a key that a sorted build expects to come after every key in `db`: appended when it does, put in
 * its place when not (another process's write went in meanwhile, or the key's encoding sorts it elsewhere),
 * which lmdb tells by refusing the append. 2.6 times as fast as a put, and leaves pages full.
 */
function putInOrder<V>(db: Database<V, string>, key: string, value: V): void {
  const appended = db.putSync(key, value, APPEND) as unknown as boolean;
  if (!appended) db.putSync(key, value);
}

/**
 * The kind codes in the order of their keys (`<code>:<value>`, compared as bytes: "10:" before "1:"), so
 * that a build reading one kind after another, each in value order, writes its keys in the index's order.
 */
export const inKeyOrder = (kindCodes: Iterable<number>): number[] =>
  [...kindCodes].sort((a, b) => Buffer.compare(Buffer.from(`${a}:`), Buffer.from(`${b}:`)));

/**
 * Copies an entity from the store of record into its (emptied) part of the index: records in id order,
 * then each identifier kind's lists in value order (the kinds in `kindCodes` order, inKeyOrder), so that
 * nearly every key is appended. Each page is read
 * from SQLite inside the index's write transaction, so a write another process makes meanwhile — which
 * takes the same lock — is either in the page read or applied after it: the result is SQLite as of the end.
 * Yields after each write transaction, so a caller can let other work run between them; `owned` is
 * asked inside each transaction, before it writes, and the build stops when it says no (another process
 * has taken the entity over). `identifiersReady` is asked once the records are in, before the identifiers
 * are read: a bulk load builds SQLite's identifier table while this copies its records, and the build
 * stops when it says no.
 */
export function* buildEntity(
  part: () => { env: RootDatabase; dbs: EntityDbs },
  source: IndexSource,
  entity: Entity,
  kindCodes: readonly number[],
  pace: BuildPace = AT_ONCE,
  owned: () => boolean = () => true,
  identifiersReady: () => boolean = () => true,
): Generator<void, boolean> {
  /**
   * Runs `page` (true while more follow) in write transactions, as many pages to each as the pace allows;
   * the part is looked up afresh for each (its environment may be reopened between them).
   */
  function* inTransactions(page: (dbs: EntityDbs) => boolean): Generator<void, boolean> {
    for (let more = true; more; ) {
      let lost = false;
      const { env, dbs } = part();
      env.transactionSync(() => {
        lost = !owned();
        if (lost) return;
        const until = performance.now() + pace.sliceMs;
        do more = page(dbs);
        while (more && performance.now() < until);
      });
      if (lost) return false;
      yield;
    }
    return true;
  }
  let afterId = '';
  const built = yield* inTransactions((dbs) => {
    const rows = source.page(entity, afterId, pace.recordPage);
    for (const row of rows) putInOrder(dbs.records, row.id, encodeRow(row));
    afterId = rows.at(-1)?.id ?? afterId;
    return rows.length === pace.recordPage;
  });
  if (!built || !identifiersReady()) return false;
  for (const kind of kindCodes) {
    let after: string | undefined;
    const listed = yield* inTransactions((dbs) => {
      const rows = source.identPage(entity, kind, after, pace.identPage);
      const more = rows.length === pace.identPage;
      for (let start = 0; start < rows.length; ) {
        const [value] = rows[start]!;
        let end = start + 1;
        while (end < rows.length && rows[end]![0] === value) end++;
        // A full page's last list may go on in the next page: leave it for that page, unless it fills
        // the page alone, in which case it is far past MAX_LISTED and crowded either way.
        if (more && end === rows.length && start > 0) break;
        const ids = rows.slice(start, end).map((row) => row[1]);
        const list = end - start > MAX_LISTED || (more && end === rows.length) ? CROWDED : ids.join('\n');
        const key = `${kind}:${value}`;
        if (fitsKey(key)) putInOrder(dbs.idents, key, list);
        after = value;
        start = end;
      }
      return more;
    });
    if (!listed) return false;
  }
  return true;
}
