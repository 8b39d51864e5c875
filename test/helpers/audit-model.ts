// The audit log as a list: what a store's query must answer, worked out from every entry it was given.
import type { AuditEntry, AuditFilter } from '../../src/store/accounting.js';

/** The entries `q` selects from `entries`: time order (then the order given), filtered, newest first on request, limited. */
export function auditAsListed(entries: readonly AuditEntry[], q: AuditFilter): AuditEntry[] {
  const matching = [...entries]
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
    .filter(
      (e) =>
        (q.keyId === undefined || e.key_id === q.keyId) &&
        (q.recordId === undefined || e.matched.includes(q.recordId)) &&
        (q.since === undefined || Date.parse(e.at) >= Date.parse(q.since)),
    );
  return (q.newestFirst ? matching.reverse() : matching).slice(0, q.limit ?? matching.length);
}

/**
 * `count` entries as an earlier version's log held them, a minute (`stepMs`) apart from `base`, a few out of
 * order and some at the same time; three keys; one or two records of 50 each, none for a 404.
 */
export function legacyEntries(count: number, base: number, stepMs: number): AuditEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(
      base + i * stepMs + (i % 97 === 0 ? -2 * 3_600_000 : 0) - (i % 5 === 1 ? stepMs : 0),
    ).toISOString(),
    key_id: `key_${i % 3}`,
    operation: i % 4 === 0 ? 'company' : 'people',
    params: i % 4 === 0 ? ['website'] : ['ln_url', 'work_email'],
    matched: i % 10 === 9 ? [] : i % 7 === 0 ? [`fp${i % 50}`, `fp${(i + 1) % 50}`] : [`fp${i % 50}`],
    status: i % 10 === 9 ? 404 : i % 7 === 0 ? 409 : 200,
  }));
}

/** Queries of every kind over entries spread over `spanMs` from `base`: all, by key, by record, since a time. */
export function legacyQueries(base: number, spanMs: number): AuditFilter[] {
  const at = (share: number) => new Date(base + spanMs * share).toISOString();
  return [
    {},
    { newestFirst: true, limit: 100 },
    { keyId: 'key_1', limit: 250 },
    { keyId: 'key_2', newestFirst: true, since: at(0.5) },
    { recordId: 'fp7' },
    { recordId: 'fp7', newestFirst: true, limit: 3 },
    { recordId: 'fp49', keyId: 'key_0', since: at(0.2) },
    { since: at(0.95), limit: 40 },
  ];
}
