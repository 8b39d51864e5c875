// A key as the admin sees it: its settings, state and usage this month; never its token or a hash of one.
import { monthStart, sumUsage } from '../accounting/usage-report.js';
import { publicKey } from '../auth/keys.js';
import { type AccountingStore, allowanceId } from '../store/accounting.js';
import type { StoredKey } from '../store/keys.js';
import { OPERATIONS } from '../vocabulary/operations.js';

/** A key's state at `now`: active, revoked or expired. */
export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: StoredKey, now: Date): KeyState {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) return 'expired';
  return 'active';
}

/** Until when a rotated-out token still works, or null. */
export function previousTokenUntil(key: StoredKey, now: Date): string | null {
  const until = key.previous_expires_at;
  return until !== null && Date.parse(until) > now.getTime() ? until : null;
}

/** A key in a listing: its settings and state. */
export const listedKey = (key: StoredKey, now = new Date()) => ({
  ...publicKey(key),
  state: keyState(key, now),
  previous_token_expires_at: previousTokenUntil(key, now),
});

/** A key's settings, state and usage this month (what `enrich keys show --json` prints). */
export async function keyReport(
  store: Pick<AccountingStore, 'usage' | 'quotaUsed'>,
  key: StoredKey,
  now = new Date(),
) {
  const since = monthStart(now);
  const period = since.slice(0, 7);
  const rows = await store.usage({ keyId: key.id, since });
  const byOperation = Object.fromEntries(
    OPERATIONS.map((op) => [op, sumUsage(rows.filter((r) => r.operation === op))]),
  );
  const quotaUsed = await store.quotaUsed(key.id, period);
  const searchQuota = key.search_quota ?? null;
  const searched = searchQuota === null ? 0 : await store.quotaUsed(allowanceId(key.id), period);
  return {
    ...listedKey(key, now),
    usage: { period, totals: sumUsage(rows), by_operation: byOperation },
    quota_used: quotaUsed,
    quota_remaining: key.quota === null ? null : Math.max(0, key.quota - quotaUsed),
    search_quota_used: searched,
    search_quota_remaining: searchQuota === null ? null : Math.max(0, searchQuota - searched),
  };
}

export type KeyReport = Awaited<ReturnType<typeof keyReport>>;
