// `enrich keys show`: a key's settings, state and usage this month, as text or JSON; never its token.

import { COUNTERS, monthStart, sumUsage } from '../accounting/usage-report.js';
import { publicKey } from '../auth/keys.js';
import { allowanceId } from '../store/accounting.js';
import type { StoredKey } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { OPERATIONS } from '../vocabulary/operations.js';
import { UsageError } from './options.js';
import { formatTable } from './table.js';

/**
 * The key a command names by id, or the one answer every command gives for an id that names none: a report
 * of an unknown key must not pass for a key that has done nothing.
 */
export async function knownKey(store: Store, id: string): Promise<StoredKey> {
  const key = await store.getKey(id);
  if (!key) throw new UsageError(`no key ${id}`);
  return key;
}

/** A key's state at `now`: active, revoked or expired. */
function state(key: StoredKey, now: Date): string {
  if (key.revoked_at !== null) return `revoked ${key.revoked_at}`;
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime())
    return `expired ${key.expires_at}`;
  return 'active';
}

/** Until when a rotated-out token still works, or null. */
function previousTokenUntil(key: StoredKey, now: Date): string | null {
  const until = key.previous_expires_at;
  return until !== null && Date.parse(until) > now.getTime() ? until : null;
}

/** A key's settings, state and usage this month; an unknown id is refused as knownKey refuses it. */
export async function describeKey(store: Store, id: string, now = new Date()) {
  const key = await knownKey(store, id);
  const since = monthStart(now);
  const period = since.slice(0, 7);
  const rows = await store.usage({ keyId: id, since });
  const byOperation = Object.fromEntries(
    OPERATIONS.map((op) => [op, sumUsage(rows.filter((r) => r.operation === op))]),
  );
  const totals = sumUsage(rows);
  const quotaUsed = await store.quotaUsed(id, period);
  const searchQuota = key.search_quota ?? null;
  const searched = searchQuota === null ? 0 : await store.quotaUsed(allowanceId(id), period);
  const json = {
    ...publicKey(key),
    state: state(key, now).split(' ')[0],
    previous_token_expires_at: previousTokenUntil(key, now),
    usage: { period, totals, by_operation: byOperation },
    quota_used: quotaUsed,
    quota_remaining: key.quota === null ? null : Math.max(0, key.quota - quotaUsed),
    search_quota_used: searched,
    search_quota_remaining: searchQuota === null ? null : Math.max(0, searchQuota - searched),
  };
  const previous = json.previous_token_expires_at;
  const quota =
    key.quota === null ? 'none' : `${key.quota} matched lookups a month (${quotaUsed} used in ${period})`;
  const settings = formatTable(
    ['KEY', key.id],
    [
      ['name', key.name],
      ['scopes', key.scopes.join(',')],
      ['rate', `${key.rate}/s`],
      ['quota', quota],
      ...(searchQuota === null
        ? []
        : [['search quota', `${searchQuota} search results a month (${searched} used in ${period})`]]),
      ['created', key.created_at],
      ['expires', key.expires_at ?? 'never'],
      ['state', state(key, now)],
      ...(previous ? [['previous token', `works until ${previous}`]] : []),
    ],
  );
  const usage = formatTable(
    ['OPERATION', ...COUNTERS.map((c) => c.toUpperCase().replace('_', ' '))],
    [...OPERATIONS.map((op) => [op, byOperation[op]!] as const), ['total', totals] as const].map(
      ([label, counts]) => [label, ...COUNTERS.map((c) => String(counts[c]))],
    ),
  );
  return { json, text: `${settings}\nUsage in ${period}:\n${usage}` };
}
