// Usage metering and quota counts on SQLite: the shared statements (../sql/usage.ts), a row at a time in one
// transaction.
import type Database from 'better-sqlite3';
import type { UsageFilter, UsageRow } from '../accounting.js';
import { SQLITE } from '../sql/spelling.js';
import { usageStatements, usageValues } from '../sql/usage.js';
import { numbered } from './numbered.js';

const SQL = usageStatements(SQLITE);

function prepare(db: Database.Database) {
  return {
    add: db.prepare<[Record<number, unknown>]>(SQL.add),
    all: db.prepare<[Record<number, unknown>], UsageRow>(SQL.all),
    ofKey: db.prepare<[Record<number, unknown>], UsageRow>(SQL.ofKey),
    quotaUsed: db.prepare<[Record<number, unknown>], number>(SQL.quotaUsed).pluck(),
    addQuota: db.prepare<[Record<number, unknown>]>(SQL.addQuota),
  };
}

/** The usage and quota statements of one connection, each prepared once. */
export class SqliteUsage {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly addQuotaBatch: (period: string, counts: Map<string, number>) => void;
  private readonly addUsageBatch: (rows: UsageRow[]) => void;

  constructor(db: Database.Database) {
    const statements = prepare(db);
    this.statements = statements;
    this.addQuotaBatch = db.transaction((period: string, counts: Map<string, number>) => {
      for (const [keyId, n] of counts) if (n !== 0) statements.addQuota.run(numbered(keyId, period, n));
    });
    this.addUsageBatch = db.transaction((rows: UsageRow[]) => {
      for (const row of rows) statements.add.run(numbered(...usageValues(row)));
    });
  }

  quotaUsed(keyId: string, period: string): number {
    return this.statements.quotaUsed.get(numbered(keyId, period)) ?? 0;
  }

  addQuotaUse(period: string, counts: Map<string, number>): void {
    this.addQuotaBatch(period, counts);
  }

  addUsage(rows: UsageRow[]): void {
    if (rows.length > 0) this.addUsageBatch(rows);
  }

  usage(filter: UsageFilter): UsageRow[] {
    const since = filter.since ?? '';
    return filter.keyId === undefined
      ? this.statements.all.all(numbered(since))
      : this.statements.ofKey.all(numbered(filter.keyId, since));
  }
}
