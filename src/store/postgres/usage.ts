// Usage metering on PostgreSQL: per key, day and operation, added to by each flush of a server's meter.
import type pg from 'pg';
import type { Operation, UsageFilter, UsageRow } from '../store.js';
import { type Queryable, query } from './pool.js';

const COUNTS = ['requests', 'matched', 'not_found', 'ambiguous', 'rejected'] as const;

interface Row {
  key_id: string;
  day: string;
  operation: string;
  requests: string;
  matched: string;
  not_found: string;
  ambiguous: string;
  rejected: string;
}

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

/** One statement, rows in key order so that concurrent flushes lock alike and cannot deadlock. */
export async function addUsage(primary: Queryable, rows: UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => {
    const x = `${a.key_id}|${a.day}|${a.operation}`;
    const y = `${b.key_id}|${b.day}|${b.operation}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  await query(primary, {
    text: `INSERT INTO key_usage (key_id, day, operation, ${COUNTS.join(', ')})
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[],
                                $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
           ON CONFLICT (key_id, day, operation) DO UPDATE SET
           ${COUNTS.map((c) => `${c} = key_usage.${c} + EXCLUDED.${c}`).join(', ')}`,
    values: [
      sorted.map((r) => r.key_id),
      sorted.map((r) => r.day),
      sorted.map((r) => r.operation),
      ...COUNTS.map((c) => sorted.map((r) => r[c])),
    ],
  });
}

export async function usage(primary: pg.Pool, filter: UsageFilter): Promise<UsageRow[]> {
  const { rows } = await query<Row>(primary, {
    text: `SELECT key_id, day, operation, ${COUNTS.join(', ')} FROM key_usage
           WHERE ($1::text IS NULL OR key_id = $1) AND day >= $2
           ORDER BY day, key_id, operation COLLATE "C"`,
    values: [filter.keyId ?? null, filter.since ?? ''],
  });
  return rows.map(toUsageRow);
}
