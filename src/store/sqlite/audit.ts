// The audit log on SQLite: one row per lookup, and an index row per record id it disclosed.
import type Database from 'better-sqlite3';
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import {
  AUDIT_COLUMNS,
  auditBounds,
  auditOrder,
  auditQueries,
  PRUNE_AUDIT,
  type StoredAuditRow,
  splitList,
  toAuditEntry,
  toAuditRow,
} from '../sql/audit.js';
import { SQLITE } from '../sql/spelling.js';
import { numbered } from './numbered.js';

/** Entries per INSERT statement when adding many. */
const ROWS_PER_INSERT = 50;

/**
 * The record index (audit_match) is keyed by (bucket, record id, audit id), a bucket being this many
 * consecutive audit ids. Keyed by record id first, every new row would land on a random page of an
 * index that grows without end: past a few million entries each one cost a page write (25–30 µs of the
 * writer's CPU, against 4.5 µs bucketed). Bucketed, new rows fill the last few pages, and a record's
 * history is one index search per bucket — a few milliseconds per million entries.
 */
export const AUDIT_BUCKET_BITS = 14;
const bucketOf = (auditId: number | bigint) => Number(auditId) >> AUDIT_BUCKET_BITS;

/**
 * Ids follow the order entries are written in, which is nearly that of their times: an entry is
 * written within a second of its time, retried writes included, and assumed never a day later. So an
 * entry written before one stamped `t` is stamped before `t + LATE_MS`.
 */
const LATE_MS = 86_400_000;
const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The parameters of a query by record id: the key may be null (any key). */
interface ByRecordParams {
  key_id: string | null;
  record_id: string;
  since: string;
  limit: number;
  first: number;
  last: number;
}

/** The queries of the log in one order: the shared ones, and by record through the bucketed index. */
function prepareQueries(db: Database.Database, direction: 'ASC' | 'DESC') {
  const shared = auditQueries(direction);
  return {
    all: db.prepare<[Record<number, unknown>], StoredAuditRow>(shared.all),
    byKey: db.prepare<[Record<number, unknown>], StoredAuditRow>(shared.byKey),
    // One search of the index per bucket, from the first that can hold an entry at or after @since.
    byRecord: db.prepare<[ByRecordParams], StoredAuditRow>(
      `WITH RECURSIVE buckets(n) AS (SELECT @first UNION ALL SELECT n + 1 FROM buckets WHERE n < @last)
       SELECT ${AUDIT_COLUMNS} FROM buckets
         JOIN audit_match m ON m.bucket = buckets.n AND m.record_id = @record_id
         JOIN audit_log a ON a.id = m.audit_id
       WHERE (@key_id IS NULL OR a.key_id = @key_id) AND a.at >= @since ${auditOrder(direction)} LIMIT @limit`,
    ),
  };
}

function prepare(db: Database.Database) {
  return {
    oldestFirst: prepareQueries(db, 'ASC'),
    newestFirst: prepareQueries(db, 'DESC'),
    insert: db.prepare<[string, string, string, string, string, number]>(
      'INSERT INTO audit_log (at, key_id, operation, params, matched, status) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertMatch: db.prepare<[number, string, number | bigint]>(
      'INSERT OR IGNORE INTO audit_match (bucket, record_id, audit_id) VALUES (?, ?, ?)',
    ),
    // The last entry, in time, before a moment: no entry with a smaller id is at or after it + LATE_MS.
    lastBefore: db
      .prepare<[string], number>('SELECT id FROM audit_log WHERE at < ? ORDER BY at DESC LIMIT 1')
      .pluck(),
    firstId: db.prepare<[], number | null>('SELECT min(id) FROM audit_log').pluck(),
    lastId: db.prepare<[], number | null>('SELECT max(id) FROM audit_log').pluck(),
    pruneBuckets: db.prepare<[number]>('DELETE FROM audit_match WHERE bucket < ?'),
    prune: db.prepare<[Record<number, unknown>]>(PRUNE_AUDIT),
  };
}

/** The audit statements of one connection, each prepared once. */
export class SqliteAudit {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly addBatch: (rows: AuditRow[]) => void;
  private readonly pruneBatch: (before: string) => number;

  constructor(db: Database.Database) {
    const statements = prepare(db);
    this.statements = statements;
    // Rows go in ROWS_PER_INSERT at a time: one statement per row spent more on binding and stepping
    // than on the rows themselves. A statement's rows take consecutive ids, ending at lastInsertRowid.
    const insertMany = db.prepare(
      `INSERT INTO audit_log (at, key_id, operation, params, matched, status) VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`,
    );
    const matchMany = db.prepare(
      `INSERT OR IGNORE INTO audit_match (bucket, record_id, audit_id) VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?)').join(', ')}`,
    );
    this.addBatch = db.transaction((rows: AuditRow[]) => {
      const matches: Array<string | number> = [];
      const addMatches = (row: AuditRow, auditId: number) => {
        if (row.matched === '') return;
        for (const id of splitList(row.matched)) matches.push(bucketOf(auditId), id, auditId);
      };
      let i = 0;
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) {
        const values: Array<string | number> = [];
        for (let j = i; j < i + ROWS_PER_INSERT; j++) {
          const r = rows[j]!;
          values.push(r.at, r.key_id, r.operation, r.params, r.matched, r.status);
        }
        const last = Number(insertMany.run(values).lastInsertRowid);
        for (let j = i; j < i + ROWS_PER_INSERT; j++)
          addMatches(rows[j]!, last - (i + ROWS_PER_INSERT - 1 - j));
      }
      for (; i < rows.length; i++) {
        const r = rows[i]!;
        const { lastInsertRowid } = statements.insert.run(
          r.at,
          r.key_id,
          r.operation,
          r.params,
          r.matched,
          r.status,
        );
        addMatches(r, Number(lastInsertRowid));
      }
      const width = 3 * ROWS_PER_INSERT;
      let m = 0;
      for (; m + width <= matches.length; m += width) matchMany.run(matches.slice(m, m + width));
      for (; m < matches.length; m += 3) {
        statements.insertMatch.run(matches[m] as number, matches[m + 1] as string, matches[m + 2] as number);
      }
    });
    this.pruneBatch = db.transaction((before: string) => {
      // Every entry below `bound` is older than `before`, so whole buckets below its bucket go at once.
      // Index rows of older entries among newer ones go with their bucket at a later prune; the log
      // never shows them, as their entries are gone.
      const bound = statements.lastBefore.get(shift(before, -LATE_MS));
      if (bound !== undefined) statements.pruneBuckets.run(bucketOf(bound));
      return statements.prune.run(numbered(before)).changes;
    });
  }

  add(entries: AuditEntry[]): void {
    this.addRows(entries.map(toAuditRow));
  }

  /** Entries whose lists are already joined, as the accounting journal carries them. */
  addRows(rows: AuditRow[]): void {
    if (rows.length > 0) this.addBatch(rows);
  }

  query(filter: AuditFilter): AuditEntry[] {
    const { since, limit } = auditBounds(SQLITE, filter);
    const queries = filter.newestFirst ? this.statements.newestFirst : this.statements.oldestFirst;
    if (filter.recordId !== undefined) {
      const first = this.firstCandidate(since);
      const last = this.statements.lastId.get();
      if (first === undefined || last === null || last === undefined) return [];
      return queries.byRecord
        .all({
          key_id: filter.keyId ?? null,
          record_id: filter.recordId,
          since,
          limit,
          first: bucketOf(first),
          last: bucketOf(last),
        })
        .map(toAuditEntry);
    }
    const rows =
      filter.keyId === undefined
        ? queries.all.all(numbered(since, limit))
        : queries.byKey.all(numbered(filter.keyId, since, limit));
    return rows.map(toAuditEntry);
  }

  /** The smallest id an entry at or after `since` ('' for all) can have, or undefined for an empty log. */
  private firstCandidate(since: string): number | undefined {
    const first = this.statements.firstId.get();
    if (first === null || first === undefined) return undefined;
    if (since === '') return first;
    return this.statements.lastBefore.get(shift(since, -LATE_MS)) ?? first;
  }

  prune(before: Date): number {
    return this.pruneBatch(before.toISOString());
  }
}
