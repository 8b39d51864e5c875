// The statements of usage metering and quota counts, written once for both stores: one row at a time on
// SQLite (inside one transaction), every row in one statement on PostgreSQL.
import type { UsageRow } from '../accounting.js';
import type { RowColumn, Spelling } from './spelling.js';

export const USAGE_COUNTS = ['requests', 'matched', 'not_found', 'ambiguous', 'rejected'] as const;

const USAGE_COLUMNS: readonly RowColumn[] = [
  ['key_id', 'text'],
  ['day', 'text'],
  ['operation', 'text'],
  ...USAGE_COUNTS.map((count): RowColumn => [count, 'bigint']),
];
const QUOTA_COLUMNS: readonly RowColumn[] = [
  ['key_id', 'text'],
  ['period', 'text'],
  ['matched', 'bigint'],
];

const names = (columns: readonly RowColumn[]) => columns.map(([name]) => name).join(', ');

export function usageStatements(s: Spelling) {
  const usage = names(USAGE_COLUMNS);
  return {
    add: `INSERT INTO key_usage (${usage}) ${s.rows(USAGE_COLUMNS)}
          ON CONFLICT (key_id, day, operation) DO UPDATE SET
          ${USAGE_COUNTS.map((c) => `${c} = key_usage.${c} + excluded.${c}`).join(', ')}`,
    all: `SELECT ${usage} FROM key_usage WHERE day >= $1 ORDER BY day, key_id, ${s.bytewise('operation')}`,
    ofKey: `SELECT ${usage} FROM key_usage WHERE key_id = $1 AND day >= $2
            ORDER BY day, ${s.bytewise('operation')}`,
    quotaUsed: 'SELECT matched FROM quota_use WHERE key_id = $1 AND period = $2',
    addQuota: `INSERT INTO quota_use (${names(QUOTA_COLUMNS)}) ${s.rows(QUOTA_COLUMNS)}
               ON CONFLICT (key_id, period) DO UPDATE SET matched = quota_use.matched + excluded.matched`,
  };
}

/** A usage row's values in the order of `add`'s parameters. */
export const usageValues = (row: UsageRow) => [
  row.key_id,
  row.day,
  row.operation,
  ...USAGE_COUNTS.map((count) => row[count]),
];

/**
 * Usage rows in key, day and operation order, and quota counts in key order (none of zero): concurrent
 * writers then lock rows in the same order and cannot deadlock.
 */
export function inKeyOrder(rows: readonly UsageRow[]): UsageRow[] {
  const order = (r: UsageRow) => `${r.key_id}|${r.day}|${r.operation}`;
  return [...rows].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

export const quotaInKeyOrder = (counts: Map<string, number>): Array<[string, number]> =>
  [...counts].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
