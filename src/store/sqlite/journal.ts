// Folding the accounting journal on SQLite: entries, usage, quota counts and the offset in one transaction.
import type Database from 'better-sqlite3';
import { FORGOTTEN_FOR_MS, forgottenMark } from '../journal-marks.js';
import type { AccountingBatch } from '../store.js';
import type { SqliteAudit } from './audit.js';
import type { SqliteKeys } from './keys.js';

export class SqliteJournal {
  private readonly offset: Database.Statement<[string], number>;
  private readonly forget: (segment: string) => void;
  private readonly fold: (segment: string, from: number, to: number, batch: AccountingBatch) => boolean;

  constructor(db: Database.Database, keys: SqliteKeys, audit: SqliteAudit) {
    this.offset = db.prepare<[string], number>('SELECT folded FROM journal_folds WHERE segment = ?').pluck();
    const advance = db.prepare<[string, number]>(
      `INSERT INTO journal_folds (segment, folded) VALUES (?, ?)
       ON CONFLICT (segment) DO UPDATE SET folded = excluded.folded`,
    );
    const dropMarks = db.prepare<[number]>('DELETE FROM journal_folds WHERE folded < 0 AND folded > ?');
    this.forget = db.transaction((segment: string) => {
      const now = Date.now();
      advance.run(segment, forgottenMark(now));
      dropMarks.run(forgottenMark(now - FORGOTTEN_FOR_MS));
    });
    const fold = db.transaction((segment: string, from: number, to: number, batch: AccountingBatch) => {
      if ((this.offset.get(segment) ?? 0) !== from) return false;
      audit.addRows(batch.audit);
      keys.addUsage(batch.usage);
      for (const [period, counts] of batch.quota) keys.addQuotaUse(period, counts);
      advance.run(segment, to);
      return true;
    });
    // BEGIN IMMEDIATE: the offset read and the writes are one step against every other folder.
    this.fold = (segment, from, to, batch) => fold.immediate(segment, from, to, batch);
  }

  foldRun(segment: string, from: number, to: number, batch: AccountingBatch): boolean {
    return this.fold(segment, from, to, batch);
  }

  offsetOf(segment: string): number {
    return this.offset.get(segment) ?? 0;
  }

  forgetSegment(segment: string): void {
    this.forget(segment);
  }
}
