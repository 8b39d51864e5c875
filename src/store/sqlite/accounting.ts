// The accounting role on SQLite: quota counts and usage (./usage.ts), the audit log (./audit.ts) and the
// journal folded into them (./journal.ts); every write ends this turn's snapshot first.
import type Database from 'better-sqlite3';
import type {
  AccountingBatch,
  AccountingStore,
  AuditEntry,
  AuditFilter,
  MinuteFilter,
  MinuteRow,
  UsageFilter,
  UsageRow,
} from '../accounting.js';
import { SqliteAudit } from './audit.js';
import { SqliteJournal } from './journal.js';
import { SqliteMinutes } from './minutes.js';
import type { TurnSnapshot } from './snapshot.js';
import { SqliteUsage } from './usage.js';

/** Methods are async to honour the interface but run synchronously. */
export class SqliteAccounting implements AccountingStore {
  private readonly usageCounts: SqliteUsage;
  private readonly auditLog: SqliteAudit;
  private readonly journal: SqliteJournal;
  private readonly minuteCounts: SqliteMinutes;

  constructor(
    db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    this.usageCounts = new SqliteUsage(db);
    this.auditLog = new SqliteAudit(db);
    this.journal = new SqliteJournal(db, this.usageCounts, this.auditLog);
    this.minuteCounts = new SqliteMinutes(db);
  }

  async quotaUsed(keyId: string, period: string): Promise<number> {
    return this.usageCounts.quotaUsed(keyId, period);
  }

  async addQuotaUse(period: string, counts: Map<string, number>): Promise<void> {
    this.snapshot.end();
    this.usageCounts.addQuotaUse(period, counts);
  }

  async addUsage(rows: UsageRow[]): Promise<void> {
    this.snapshot.end();
    this.usageCounts.addUsage(rows);
  }

  async usage(filter: UsageFilter): Promise<UsageRow[]> {
    return this.usageCounts.usage(filter);
  }

  async addMinutes(rows: MinuteRow[], opts: { wait?: boolean } = {}): Promise<void> {
    this.snapshot.end();
    this.minuteCounts.add(rows, opts.wait ?? true);
  }

  async minutes(filter: MinuteFilter): Promise<MinuteRow[]> {
    return this.minuteCounts.read(filter);
  }

  async pruneMinutes(before: string): Promise<number> {
    this.snapshot.end();
    return this.minuteCounts.pruneBefore(before);
  }

  async addAudit(entries: AuditEntry[]): Promise<void> {
    this.snapshot.end();
    this.auditLog.add(entries);
  }

  async audit(filter: AuditFilter): Promise<AuditEntry[]> {
    return this.auditLog.query(filter);
  }

  async pruneAudit(before: Date): Promise<number> {
    this.snapshot.end();
    return this.auditLog.prune(before);
  }

  async foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean> {
    this.snapshot.end();
    return this.journal.foldRun(segment, from, to, batch);
  }

  async journalOffset(segment: string): Promise<number> {
    return this.journal.offsetOf(segment);
  }

  async forgetJournal(segment: string): Promise<void> {
    this.snapshot.end();
    this.journal.forgetSegment(segment);
  }
}
