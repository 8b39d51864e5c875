// The accounting role on PostgreSQL: quota counts and usage (./usage.ts), the audit log (./audit.ts) and the
// journal folded into them (./journal.ts), all on the primary.
import type pg from 'pg';
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
import * as audit from './audit.js';
import * as journal from './journal.js';
import * as minutes from './minutes.js';
import * as usage from './usage.js';

export class PostgresAccounting implements AccountingStore {
  constructor(private readonly primary: pg.Pool) {}

  quotaUsed(keyId: string, period: string): Promise<number> {
    return usage.quotaUsed(this.primary, keyId, period);
  }

  addQuotaUse(period: string, counts: Map<string, number>): Promise<void> {
    return usage.addQuotaUse(this.primary, period, counts);
  }

  addUsage(rows: UsageRow[]): Promise<void> {
    return usage.addUsage(this.primary, rows);
  }

  usage(filter: UsageFilter): Promise<UsageRow[]> {
    return usage.usage(this.primary, filter);
  }

  /** PostgreSQL's row locks do not queue behind a refresh: `wait` makes no difference here. */
  addMinutes(rows: MinuteRow[]): Promise<void> {
    return minutes.addMinutes(this.primary, rows);
  }

  minutes(filter: MinuteFilter): Promise<MinuteRow[]> {
    return minutes.minutes(this.primary, filter);
  }

  pruneMinutes(before: string): Promise<number> {
    return minutes.pruneMinutes(this.primary, before);
  }

  addAudit(entries: AuditEntry[]): Promise<void> {
    return audit.addAudit(this.primary, entries);
  }

  audit(filter: AuditFilter): Promise<AuditEntry[]> {
    return audit.audit(this.primary, filter);
  }

  pruneAudit(before: Date): Promise<number> {
    return audit.pruneAudit(this.primary, before);
  }

  foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean> {
    return journal.foldJournal(this.primary, segment, from, to, batch);
  }

  journalOffset(segment: string): Promise<number> {
    return journal.journalOffset(this.primary, segment);
  }

  forgetJournal(segment: string): Promise<void> {
    return journal.forgetJournal(this.primary, segment);
  }
}
