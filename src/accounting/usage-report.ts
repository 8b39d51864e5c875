// Usage rows summed and merged: shared by GET /v1/usage, `enrich usage` and `enrich keys show`.
import type { AccountingStore, UsageCounts, UsageRow } from '../store/accounting.js';
import type { KeyStore } from '../store/keys.js';

export const COUNTERS = ['requests', 'matched', 'not_found', 'ambiguous', 'rejected'] as const;

export const emptyCounts = (): UsageCounts => ({
  requests: 0,
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  rejected: 0,
});

/** The counts of several rows added up. */
export function sumUsage(rows: readonly UsageCounts[]): UsageCounts {
  const total = emptyCounts();
  for (const row of rows) for (const c of COUNTERS) total[c] += row[c];
  return total;
}

const rowKey = (row: UsageRow) => `${row.day}|${row.key_id}|${row.operation}`;

/** Rows for the same key, day and operation added together, in day, key and operation order. */
export function mergeUsage(rows: readonly UsageRow[]): UsageRow[] {
  const merged = new Map<string, UsageRow>();
  for (const row of rows) {
    const id = rowKey(row);
    const known = merged.get(id);
    if (known) for (const c of COUNTERS) known[c] += row[c];
    else merged.set(id, { ...row });
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** The first day of the quota period (calendar month, UTC) of a moment, 'YYYY-MM-01'. */
export const monthStart = (at: Date) => `${at.toISOString().slice(0, 7)}-01`;

/** Every key in use (not revoked, not expired) that has a quota: its quota and what it used this month. */
export async function quotaStanding(store: KeyStore & Pick<AccountingStore, 'quotaUsed'>, now = new Date()) {
  const period = monthStart(now).slice(0, 7);
  const live = (await store.listKeys()).filter(
    (k) =>
      k.quota !== null &&
      k.revoked_at === null &&
      (k.expires_at === null || Date.parse(k.expires_at) > now.getTime()),
  );
  return Promise.all(
    live.map(async (k) => ({ key: k.id, quota: k.quota!, used: await store.quotaUsed(k.id, period) })),
  );
}
