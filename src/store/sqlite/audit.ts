// The audit log on SQLite, in segments (./audit-segment.ts): each fold's entries are one row of `audit_log`,
// found by time through its last entry's time (its first is at most SEGMENT_SPAN_MS before), by key through
// `audit_by_key` (a row per key and segment) and by record through `audit_match` (a row per record-id hash
// and segment).
import type Database from 'better-sqlite3';
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import { toAuditRow } from '../sql/audit.js';
import { recordHash, SEGMENT_SPAN_MS } from '../sql/audit-segment.js';
import {
  collectAudit,
  inReadingOrder,
  packRows,
  type SegmentTimes,
  segmentQuery,
  withoutEntriesBefore,
} from '../sql/audit-segments.js';
import { SQLITE } from '../sql/spelling.js';

/**
 * The record index (audit_match) is keyed by (bucket, record hash, segment), a bucket being this many
 * consecutive entries (by their segment's first). Keyed by record first, every new row would land on a random
 * page of an index that grows without end: past a few million entries each one cost a page write. Bucketed,
 * new rows fill the last few pages, and a record's history is one index search per bucket.
 */
export const AUDIT_BUCKET_BITS = 14;
const bucketOf = (seq: number) => Math.floor(seq / 2 ** AUDIT_BUCKET_BITS);

/** Segments' times read per query of them, while a query looks for more. */
const PAGE = 256;

/** The SQL of the log (migration 22 makes its tables). */
function prepare(db: Database.Database) {
  const times = 'id, last_at';
  return {
    insert: db.prepare<[number, number, number, number, Buffer]>(
      'INSERT INTO audit_log (first_seq, first_at, last_at, entries, body) VALUES (?, ?, ?, ?, ?)',
    ),
    update: db.prepare<[number, number, number, Buffer, number]>(
      'UPDATE audit_log SET first_at = ?, last_at = ?, entries = ?, body = ? WHERE id = ?',
    ),
    remove: db.prepare<[number]>('DELETE FROM audit_log WHERE id = ?'),
    // The last segment's end (ids and sequence numbers grow together): one page read.
    nextSeq: db
      .prepare<[], number>('SELECT first_seq + entries FROM audit_log ORDER BY id DESC LIMIT 1')
      .pluck(),
    body: db.prepare<[number], Buffer>('SELECT body FROM audit_log WHERE id = ?').pluck(),
    addKey: db.prepare<[string, number, number]>(
      'INSERT OR IGNORE INTO audit_by_key (key_id, last_at, segment) VALUES (?, ?, ?)',
    ),
    keys: db.prepare<[], string>('SELECT DISTINCT key_id FROM audit_by_key').pluck(),
    pruneKey: db.prepare<[string, number]>('DELETE FROM audit_by_key WHERE key_id = ? AND last_at < ?'),
    // A segment's record hashes in one statement (a JSON array), not a call per hash.
    addMatches: db.prepare<[number, number, string]>(
      `INSERT OR IGNORE INTO audit_match (bucket, record_hash, segment)
       SELECT ?, value, ? FROM json_each(?)`,
    ),
    // Every segment from `since` in order of its last entry's time, a page at a time after the last one read.
    allAsc: db.prepare<[number, number, number], SegmentTimes>(
      `SELECT ${times} FROM audit_log WHERE last_at >= ? AND (last_at, id) > (?, ?)
       ORDER BY last_at, id LIMIT ${PAGE}`,
    ),
    allDesc: db.prepare<[number, number, number], SegmentTimes>(
      `SELECT ${times} FROM audit_log WHERE last_at >= ? AND (last_at, id) < (?, ?)
       ORDER BY last_at DESC, id DESC LIMIT ${PAGE}`,
    ),
    keyAsc: db.prepare<[string, number, number, number], SegmentTimes>(
      `SELECT segment AS id, last_at FROM audit_by_key
       WHERE key_id = ? AND last_at >= ? AND (last_at, segment) > (?, ?)
       ORDER BY last_at, segment LIMIT ${PAGE}`,
    ),
    keyDesc: db.prepare<[string, number, number, number], SegmentTimes>(
      `SELECT segment AS id, last_at FROM audit_by_key
       WHERE key_id = ? AND last_at >= ? AND (last_at, segment) < (?, ?)
       ORDER BY last_at DESC, segment DESC LIMIT ${PAGE}`,
    ),
    // The segments that may hold a record: one search of the index per bucket from @first to @last.
    byRecord: db.prepare<[{ first: number; last: number; hash: number; since: number }], SegmentTimes>(
      `WITH RECURSIVE buckets(n) AS (SELECT @first UNION ALL SELECT n + 1 FROM buckets WHERE n < @last)
       SELECT s.id, s.last_at FROM buckets
         JOIN audit_match m ON m.bucket = buckets.n AND m.record_hash = @hash
         JOIN audit_log s ON s.id = m.segment
       WHERE s.last_at >= @since`,
    ),
    // From the time index alone (it carries first_seq): no segment's body is read.
    firstSeqSince: db
      .prepare<[number], number | null>('SELECT min(first_seq) FROM audit_log WHERE last_at >= ?')
      .pluck(),
    // The newest segment's: in the last bucket any segment is in (sequence numbers grow with ids, and the
    // segments migration 22 made of one run of ids share a bucket).
    lastSeq: db
      .prepare<[], number | undefined>('SELECT first_seq FROM audit_log ORDER BY id DESC LIMIT 1')
      .pluck(),
    firstSeq: db.prepare<[], number | null>('SELECT min(first_seq) FROM audit_log').pluck(),
    old: db.prepare<[number], { id: number; entries: number }>(
      'SELECT id, entries FROM audit_log WHERE last_at < ?',
    ),
    straddling: db.prepare<[number, number, number], { id: number; body: Buffer }>(
      'SELECT id, body FROM audit_log WHERE last_at >= ? AND last_at < ? AND first_at < ?',
    ),
    pruneBuckets: db.prepare<[number]>('DELETE FROM audit_match WHERE bucket < ?'),
  };
}

type Statements = ReturnType<typeof prepare>;

/** The audit statements of one connection, each prepared once. */
export class SqliteAudit {
  private readonly statements: Statements;
  private readonly addBatch: (rows: AuditRow[]) => void;
  private readonly pruneBatch: (before: number) => number;

  constructor(db: Database.Database) {
    const s = prepare(db);
    this.statements = s;
    // Each segment's row, then its index rows; sequence numbers go on from the last segment's.
    this.addBatch = db.transaction((rows: AuditRow[]) => {
      let seq = s.nextSeq.get() ?? 0;
      for (const packed of packRows(rows)) {
        const { lastInsertRowid } = s.insert.run(
          seq,
          packed.firstAt,
          packed.lastAt,
          packed.entries,
          packed.body,
        );
        const id = Number(lastInsertRowid);
        for (const key of packed.keys) s.addKey.run(key, packed.lastAt, id);
        s.addMatches.run(bucketOf(seq), id, JSON.stringify(packed.recordHashes));
        seq += packed.entries;
      }
    });
    this.pruneBatch = db.transaction((before: number) => {
      let pruned = 0;
      for (const { id, entries } of s.old.all(before)) {
        s.remove.run(id);
        pruned += entries;
      }
      for (const key of s.keys.all()) s.pruneKey.run(key, before);
      // A segment with entries on both sides of `before` keeps the newer ones, under its id and last time.
      // Its index rows of keys and records only the older ones had stay until their time or bucket goes: a
      // query checks each entry it reads.
      for (const { id, body } of s.straddling.all(before, before + SEGMENT_SPAN_MS, before)) {
        const { packed, pruned: older } = withoutEntriesBefore(body, before);
        pruned += older;
        s.update.run(packed.firstAt, packed.lastAt, packed.entries, packed.body, id);
      }
      const first = s.firstSeq.get();
      s.pruneBuckets.run(first === null || first === undefined ? Number.MAX_SAFE_INTEGER : bucketOf(first));
      return pruned;
    });
  }

  add(entries: AuditEntry[]): void {
    this.addRows(entries.map(toAuditRow));
  }

  /** Entries whose lists are already joined, as the accounting journal carries them. */
  addRows(rows: AuditRow[]): void {
    if (rows.length > 0) this.addBatch(rows);
  }

  query(filter: AuditFilter): Promise<AuditEntry[]> {
    const q = segmentQuery(SQLITE, filter);
    const segments =
      filter.recordId !== undefined
        ? this.recordSegments(filter.recordId, q.since, q.newest)
        : this.timeSegments(filter.keyId, q.since, q.newest);
    return collectAudit(segments, q, (id) => this.statements.body.get(id));
  }

  /** Segments from `since` in time order, all or those holding a key's entries, read a page at a time. */
  private *timeSegments(keyId: string | undefined, since: number, newest: boolean): Generator<SegmentTimes> {
    const s = this.statements;
    let after: [number, number] = newest
      ? [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
      : [-Number.MAX_SAFE_INTEGER, 0];
    for (;;) {
      const page =
        keyId === undefined
          ? (newest ? s.allDesc : s.allAsc).all(since, ...after)
          : (newest ? s.keyDesc : s.keyAsc).all(keyId, since, ...after);
      yield* page;
      if (page.length < PAGE) return;
      const last = page[page.length - 1]!;
      after = [last.last_at, last.id];
    }
  }

  /** The segments whose index rows name a record's hash, from `since`, in time order. */
  private recordSegments(recordId: string, since: number, newest: boolean): SegmentTimes[] {
    const s = this.statements;
    const first = s.firstSeqSince.get(since);
    const last = s.lastSeq.get();
    if (first === null || first === undefined || last === null || last === undefined) return [];
    const segments = s.byRecord.all({
      first: bucketOf(first),
      last: bucketOf(last),
      hash: recordHash(recordId),
      since,
    });
    return inReadingOrder(segments, newest);
  }

  prune(before: Date): number {
    return this.pruneBatch(before.getTime());
  }
}
