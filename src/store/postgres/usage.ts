// Usage metering and quota counts on PostgreSQL: the shared statements (../sql/usage.ts), every row of a
// flush in one statement.
import type { Operation } from '../../vocabulary/operations.js';
import type { UsageFilter, UsageRow } from '../accounting.js';
import { POSTGRES } from '../sql/spelling.js';
import {
  inKeyOrder,
  quotaInKeyOrder,
  type USAGE_COUNTS,
  usageStatements,
  usageValues,
} from '../sql/usage.js';
import { type Queryable, query } from './pool.js';

const SQL = usageStatements(POSTGRES);

/** A usage row as PostgreSQL gives it back: counts as bigints' text. */
type Row = { key_id: string; day: string; operation: string } & Record<(typeof USAGE_COUNTS)[number], string>;

const toUsageRow = (row: Row): UsageRow => ({
  key_id: row.key_id,
  day: row.day,
  operation: row.operation as Operation,
  requests: Number(row.requests),
  matched: Number(row.matched),
  not_found: Number(row.not_found),
  ambiguous: Number(row.ambiguous),
  rejected: Number(row.rejected),
});

/** The columns of rows as arrays, one per parameter of an unnesting statement. */
const byColumn = (rows: ReadonlyArray<readonly unknown[]>, width: number) =>
  Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));

export async function addUsage(db: Queryable, rows: UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = inKeyOrder(rows).map(usageValues);
  await query(db, { text: SQL.add, values: byColumn(values, values[0]!.length) });
}

export async function usage(db: Queryable, filter: UsageFilter): Promise<UsageRow[]> {
  const since = filter.since ?? '';
  const { rows } =
    filter.keyId === undefined
      ? await query<Row>(db, { text: SQL.all, values: [since] })
      : await query<Row>(db, { text: SQL.ofKey, values: [filter.keyId, since] });
  return rows.map(toUsageRow);
}

export async function quotaUsed(db: Queryable, keyId: string, period: string): Promise<number> {
  const { rows } = await query<{ matched: string }>(db, {
    name: 'enrich_quota_used',
    text: SQL.quotaUsed,
    values: [keyId, period],
  });
  return rows[0] ? Number(rows[0].matched) : 0;
}

export async function addQuotaUse(db: Queryable, period: string, counts: Map<string, number>): Promise<void> {
  const entries = quotaInKeyOrder(counts);
  if (entries.length === 0) return;
  await query(db, {
    text: SQL.addQuota,
    values: [entries.map(([keyId]) => keyId), entries.map(() => period), entries.map(([, n]) => n)],
  });
}
