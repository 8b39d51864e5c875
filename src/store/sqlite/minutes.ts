// Per-minute counts on SQLite: the shared statements (../sql/minutes.ts), a row at a time in one
// transaction.
import type Database from 'better-sqlite3';
import type { MinuteFilter, MinuteRow } from '../accounting.js';
import {
  END_OF_TIME,
  minuteStatements,
  minuteValues,
  type StoredMinuteRow,
  toMinuteRow,
} from '../sql/minutes.js';
import { SQLITE } from '../sql/spelling.js';
import { numbered } from './numbered.js';

const SQL = minuteStatements(SQLITE);

export class SqliteMinutes {
  private readonly all: Database.Statement<[Record<number, unknown>], StoredMinuteRow>;
  private readonly ofKey: Database.Statement<[Record<number, unknown>], StoredMinuteRow>;
  private readonly prune: Database.Statement<[Record<number, unknown>]>;
  private readonly addBatch: (rows: MinuteRow[]) => void;

  constructor(private readonly db: Database.Database) {
    const add = db.prepare<[Record<number, unknown>]>(SQL.add);
    this.all = db.prepare<[Record<number, unknown>], StoredMinuteRow>(SQL.all);
    this.ofKey = db.prepare<[Record<number, unknown>], StoredMinuteRow>(SQL.ofKey);
    this.prune = db.prepare<[Record<number, unknown>]>(SQL.prune);
    this.addBatch = db.transaction((rows: MinuteRow[]) => {
      for (const row of rows) add.run(numbered(...minuteValues(row)));
    });
  }

  /** Adds the rows in one transaction; without `wait`, fails busy at once while another connection writes. */
  add(rows: MinuteRow[], wait = true): void {
    if (rows.length === 0) return;
    if (wait) {
      this.addBatch(rows);
      return;
    }
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.addBatch(rows);
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  read(filter: MinuteFilter): MinuteRow[] {
    const until = filter.until ?? END_OF_TIME;
    const rows =
      filter.keyId === undefined
        ? this.all.all(numbered(filter.since, until))
        : this.ofKey.all(numbered(filter.since, until, filter.keyId));
    return rows.map(toMinuteRow);
  }

  pruneBefore(before: string): number {
    return this.prune.run(numbered(before)).changes;
  }
}
