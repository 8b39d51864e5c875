// The audit log on SQLite: one row per lookup, and an index row per record id it disclosed.
import type Database from 'better-sqlite3';
import type { AuditEntry, AuditFilter, Operation } from './store.js';

interface AuditRow {
  at: string;
  key_id: string;
  operation: string;
  params: string;
  matched: string;
  status: number;
}

/** Parameter names and record ids never hold a comma, so a list is kept as one comma-joined text. */
export const joinList = (items: readonly string[]) => items.join(',');
export const splitList = (text: string) => (text === '' ? [] : text.split(','));

export const toAuditEntry = (row: AuditRow): AuditEntry => ({
  at: row.at,
  key_id: row.key_id,
  operation: row.operation as Operation,
  params: splitList(row.params),
  matched: splitList(row.matched),
  status: row.status,
});

/** Unbounded reads are capped here rather than trusted to the caller. */
const MAX_ROWS = 1_000_000;

interface QueryParams {
  key_id: string | null;
  record_id: string | null;
  /** '' when not given: every ISO time sorts after it, and the (key_id, at) index still applies. */
  since: string;
  limit: number;
}

function prepare(db: Database.Database) {
  const columns = 'a.at, a.key_id, a.operation, a.params, a.matched, a.status';
  const select = (from: string, where: string) =>
    db.prepare<QueryParams, AuditRow>(
      `SELECT ${columns} FROM ${from} WHERE ${where} AND a.at >= @since ORDER BY a.at, a.id LIMIT @limit`,
    );
  return {
    insert: db.prepare<[string, string, string, string, string, number]>(
      'INSERT INTO audit_log (at, key_id, operation, params, matched, status) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertMatch: db.prepare<[string, number | bigint]>(
      'INSERT OR IGNORE INTO audit_match (record_id, audit_id) VALUES (?, ?)',
    ),
    all: select('audit_log a', '@key_id IS NULL AND @record_id IS NULL'),
    byKey: select('audit_log a', 'a.key_id = @key_id AND @record_id IS NULL'),
    byRecord: select(
      'audit_match m JOIN audit_log a ON a.id = m.audit_id',
      'm.record_id = @record_id AND (@key_id IS NULL OR a.key_id = @key_id)',
    ),
    pruneMatches: db.prepare<[string]>(
      'DELETE FROM audit_match WHERE audit_id IN (SELECT id FROM audit_log WHERE at < ?)',
    ),
    prune: db.prepare<[string]>('DELETE FROM audit_log WHERE at < ?'),
  };
}

/** The audit statements of one connection, each prepared once. */
export class SqliteAudit {
  private readonly s: ReturnType<typeof prepare>;
  private readonly addBatch: (entries: AuditEntry[]) => void;
  private readonly pruneBatch: (before: string) => number;

  constructor(db: Database.Database) {
    const s = prepare(db);
    this.s = s;
    this.addBatch = db.transaction((entries: AuditEntry[]) => {
      for (const e of entries) {
        const { lastInsertRowid } = s.insert.run(
          e.at,
          e.key_id,
          e.operation,
          joinList(e.params),
          joinList(e.matched),
          e.status,
        );
        for (const id of e.matched) s.insertMatch.run(id, lastInsertRowid);
      }
    });
    this.pruneBatch = db.transaction((before: string) => {
      s.pruneMatches.run(before);
      return s.prune.run(before).changes;
    });
  }

  add(entries: AuditEntry[]): void {
    if (entries.length > 0) this.addBatch(entries);
  }

  query(filter: AuditFilter): AuditEntry[] {
    const params: QueryParams = {
      key_id: filter.keyId ?? null,
      record_id: filter.recordId ?? null,
      since: filter.since === undefined ? '' : new Date(filter.since).toISOString(),
      limit: filter.limit ?? MAX_ROWS,
    };
    const statement =
      filter.recordId !== undefined
        ? this.s.byRecord
        : filter.keyId !== undefined
          ? this.s.byKey
          : this.s.all;
    return statement.all(params).map(toAuditEntry);
  }

  prune(before: Date): number {
    return this.pruneBatch(before.toISOString());
  }
}
