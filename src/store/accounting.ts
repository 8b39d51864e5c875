// The accounting role of the store: quota counts, usage, the audit log, and the journal they are folded from.
import type { Operation } from '../vocabulary/operations.js';

/** What happened to a key's requests: every request, and each outcome (a 5xx counts only as a request). */
export interface UsageCounts {
  requests: number;
  matched: number;
  not_found: number;
  ambiguous: number;
  /** Any other 4xx: bad parameters, and 401/402/403/429 for a known key. */
  rejected: number;
}

/** Usage of one key on one UTC day ('YYYY-MM-DD') for one operation. */
export interface UsageRow extends UsageCounts {
  key_id: string;
  day: string;
  operation: Operation;
}

export interface UsageFilter {
  keyId?: string;
  /** First day included, 'YYYY-MM-DD'. */
  since?: string;
}

/** One keyed lookup as audited: parameter names (never their values) and the record ids disclosed. */
export interface AuditEntry {
  /** ISO-8601 time of the request. */
  at: string;
  key_id: string;
  operation: Operation;
  params: string[];
  /** The record id on a 200/304, the ids listed by a 409, none otherwise. */
  matched: string[];
  status: number;
}

/** An audit entry with its lists comma-joined, as the stores keep them and the journal carries them. */
export interface AuditRow {
  /** When, in milliseconds since the epoch (the journal's own unit; segments keep the same). */
  atMs: number;
  key_id: string;
  operation: Operation;
  /** Parameter names, comma-joined (none hold a comma). */
  params: string;
  /** Record ids, comma-joined (none hold a comma). */
  matched: string;
  status: number;
}

/** What a run of the accounting journal adds to the store (src/accounting/journal-format.ts). */
export interface AccountingBatch {
  audit: AuditRow[];
  usage: UsageRow[];
  /** Matched lookups per period ('YYYY-MM') and key id; search results under `allowanceId(key id)`. */
  quota: Map<string, Map<string, number>>;
}

export interface AuditFilter {
  keyId?: string;
  /** Entries that disclosed this record id. */
  recordId?: string;
  /** Earliest time included (ISO-8601 date or time). */
  since?: string;
  /** At most this many entries: the oldest, or the newest with `newestFirst`. */
  limit?: number;
  /** Newest first (time, then the order they were written in, both descending); oldest first otherwise. */
  newestFirst?: boolean;
}

/**
 * The id a key's search allowance is counted under, apart from its quota: the results its searches returned
 * are kept in the quota counts as its matched lookups are, under this id.
 */
export const allowanceId = (keyId: string) => `search:${keyId}`;

/**
 * The upper bounds, in milliseconds, of the latency buckets a minute's counts keep (1-2.5-5 steps); one more
 * bucket takes every slower request. Buckets add up across processes and minutes, as percentiles do not.
 */
export const LATENCY_BOUNDS_MS = [
  0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000,
] as const;

/** One key's requests of one operation in one UTC minute ('YYYY-MM-DDTHH:MM'), as the server counted them. */
export interface MinuteRow extends UsageCounts {
  minute: string;
  key_id: string;
  operation: Operation;
  /** How many requests took up to each of LATENCY_BOUNDS_MS, and more: one count per bucket. */
  latency: number[];
}

export interface MinuteFilter {
  keyId?: string;
  /** First minute included, 'YYYY-MM-DDTHH:MM'. */
  since: string;
  /** First minute excluded; none: up to now. */
  until?: string;
}

export interface AccountingStore {
  /** Matched lookups counted against a key in a period ('YYYY-MM'); its search results under `allowanceId`. */
  quotaUsed(keyId: string, period: string): Promise<number>;
  /** Adds to those counts; `counts` maps key id to the number to add. */
  addQuotaUse(period: string, counts: Map<string, number>): Promise<void>;

  /** Adds each row's counts to the stored ones for its key, day and operation. */
  addUsage(rows: UsageRow[]): Promise<void>;
  /** Usage rows in day, key and operation order. */
  usage(filter: UsageFilter): Promise<UsageRow[]>;

  /**
   * Adds each row's counts (and latency buckets) to the stored ones for its minute, key and operation. With
   * `wait: false`, a store whose writes queue for one lock (SQLite) fails busy at once while another process
   * holds it, rather than waiting for it (the caller tries again later).
   */
  addMinutes(rows: MinuteRow[], opts?: { wait?: boolean }): Promise<void>;
  /** Minute rows in minute, key and operation order. */
  minutes(filter: MinuteFilter): Promise<MinuteRow[]>;
  /** Removes the minutes before `before` ('YYYY-MM-DDTHH:MM'); returns how many rows. */
  pruneMinutes(before: string): Promise<number>;

  /** Appends audit entries in one transaction. */
  addAudit(entries: AuditEntry[]): Promise<void>;
  /** Audit entries in time order, oldest first unless `filter.newestFirst`. */
  audit(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Removes entries older than `before`; returns how many. */
  pruneAudit(before: Date): Promise<number>;

  /**
   * Folds a run of an accounting journal segment into the store, in one transaction with the segment's
   * new offset (`to`), and only if the segment is folded exactly up to `from`: whoever folds a run, and
   * however often it is tried, it is counted once. False when the offset was not `from`.
   */
  foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean>;
  /** How far a journal segment has been folded, in bytes (0 when never; negative once forgotten). */
  journalOffset(segment: string): Promise<number>;
  /**
   * Forgets a segment whose file is deleted: no run of it folds again, not even one a late folder read
   * before the file went. The mark that says so is removed a day later (the name is never used again).
   */
  forgetJournal(segment: string): Promise<void>;
}
