// Folding the accounting journal on SQLite: entries, usage, quota counts and the offset in one transaction.
import type Database from 'better-sqlite3';
import type { AccountingBatch } from '../accounting.js';
import { forgetting, JOURNAL_STATEMENTS } from '../sql/journal.js';
import type { SqliteAudit } from './audit.js';
import { numbered } from './numbered.js';
import type { SqliteUsage } from './usage.js';

export class SqliteJournal {
  private readonly offset: Database.Statement<[Record<number, unknown>], number>;
  private readonly forget: (segment: string) => void;
  private readonly fold: (segment: string, from: number, to: number, batch: AccountingBatch) => boolean;

  constructor(db: Database.Database, usage: SqliteUsage, audit: SqliteAudit) {
    this.offset = db.prepare<[Record<number, unknown>], number>(JOURNAL_STATEMENTS.offset).pluck();
    const advance = db.prepare<[Record<number, unknown>]>(JOURNAL_STATEMENTS.advance);
    const dropMarks = db.prepare<[Record<number, unknown>]>(JOURNAL_STATEMENTS.dropMarks);
    this.forget = db.transaction((segment: string) => {
      const { mark, expiredAbove } = forgetting();
      advance.run(numbered(segment, mark));
      dropMarks.run(numbered(expiredAbove));
    });
    const fold = db.transaction((segment: string, from: number, to: number, batch: AccountingBatch) => {
      if (this.offsetOf(segment) !== from) return false;
      audit.addRows(batch.audit);
      usage.addUsage(batch.usage);
      for (const [period, counts] of batch.quota) usage.addQuotaUse(period, counts);
      advance.run(numbered(segment, to));
      return true;
    });
    // BEGIN IMMEDIATE: the offset read and the writes are one step against every other folder.
    this.fold = (segment, from, to, batch) => fold.immediate(segment, from, to, batch);
  }

  foldRun(segment: string, from: number, to: number, batch: AccountingBatch): boolean {
    return this.fold(segment, from, to, batch);
  }

  offsetOf(segment: string): number {
    return this.offset.get(numbered(segment)) ?? 0;
  }

  forgetSegment(segment: string): void {
    this.forget(segment);
  }
}
