// What the audit log takes on disk: its tables' and indexes' pages on SQLite (dbstat), and how many entries
// they hold, for `npm run bench`'s verdict (issue 24: at most 64 bytes per audited lookup) and bench:audit.
import Database from 'better-sqlite3';

export interface AuditStorage {
  entries: number;
  bytes: number;
  /** Bytes per table or index, by name. */
  byName: Map<string, number>;
}

/** The audit log of a SQLite store, its WAL checkpointed first (no process may have it open). */
export function sqliteAuditStorage(file: string): AuditStorage {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const rows = db
      .prepare<[], { name: string; bytes: number }>(
        `SELECT name, sum(pgsize) AS bytes FROM dbstat
         WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name LIKE 'audit%') GROUP BY name`,
      )
      .all();
    // A store from before the segments (schema 21 and earlier) kept a row per entry.
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('audit_log')").pluck().all();
    const entries = db
      .prepare<[], number>(
        columns.includes('entries')
          ? 'SELECT coalesce(sum(entries), 0) FROM audit_log'
          : 'SELECT count(*) FROM audit_log',
      )
      .pluck()
      .get()!;
    const byName = new Map(rows.map(({ name, bytes }) => [name, bytes]));
    return { entries, bytes: [...byName.values()].reduce((sum, b) => sum + b, 0), byName };
  } finally {
    db.close();
  }
}
