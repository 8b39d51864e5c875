// `enrich keys show`: a key's settings, state and usage this month, as text or JSON; never its token.

import { COUNTERS } from '../accounting/usage-report.js';
import { keyReport } from '../admin/key-report.js';
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

/** A key's settings, state and usage this month; an unknown id is refused as knownKey refuses it. */
export async function describeKey(store: Store, id: string, now = new Date()) {
  const key = await knownKey(store, id);
  const json = await keyReport(store, key, now);
  const { period, totals, by_operation: byOperation } = json.usage;
  const quotaUsed = json.quota_used;
  const searchQuota = key.search_quota ?? null;
  const searched = json.search_quota_used;
  const state =
    json.state === 'active'
      ? 'active'
      : `${json.state} ${json.state === 'revoked' ? key.revoked_at : key.expires_at}`;
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
      ['state', state],
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
