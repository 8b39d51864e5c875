// The per-minute counts of requests, outcomes and latency buckets (the admin API's charts), written once for
// both stores: a row a process adds to is summed with what any other process added for that minute.
import type { Operation } from '../../vocabulary/operations.js';
import { LATENCY_BOUNDS_MS, type MinuteRow } from '../accounting.js';
import type { RowColumn, Spelling } from './spelling.js';
import { USAGE_COUNTS } from './usage.js';

/** One column per latency bucket: lat_0 … lat_16. */
export const LATENCY_COLUMNS = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => `lat_${i}`);

const COUNTED = [...USAGE_COUNTS, ...LATENCY_COLUMNS];

const COLUMNS: readonly RowColumn[] = [
  ['minute', 'text'],
  ['key_id', 'text'],
  ['operation', 'text'],
  ...COUNTED.map((column): RowColumn => [column, 'bigint']),
];

const NAMES = COLUMNS.map(([name]) => name).join(', ');

export function minuteStatements(s: Spelling) {
  const order = `ORDER BY minute, ${s.bytewise('key_id')}, ${s.bytewise('operation')}`;
  return {
    add: `INSERT INTO usage_minutes (${NAMES}) ${s.rows(COLUMNS)}
          ON CONFLICT (minute, key_id, operation) DO UPDATE SET
          ${COUNTED.map((c) => `${c} = usage_minutes.${c} + excluded.${c}`).join(', ')}`,
    all: `SELECT ${NAMES} FROM usage_minutes WHERE minute >= $1 AND minute < $2 ${order}`,
    ofKey: `SELECT ${NAMES} FROM usage_minutes WHERE minute >= $1 AND minute < $2 AND key_id = $3 ${order}`,
    prune: 'DELETE FROM usage_minutes WHERE minute < $1',
  };
}

/** The table's columns, for each backend's migration: `integer` on SQLite, `bigint` on PostgreSQL. */
export const minutesTable = (text: string, integer: string, suffix = '') => `
  CREATE TABLE IF NOT EXISTS usage_minutes (
    minute ${text} NOT NULL,
    key_id ${text} NOT NULL,
    operation ${text} NOT NULL,
    ${COUNTED.map((c) => `${c} ${integer} NOT NULL`).join(',\n    ')},
    PRIMARY KEY (minute, key_id, operation)
  )${suffix};`;

/** A row's values in the order of `add`'s parameters. */
export const minuteValues = (row: MinuteRow) => [
  row.minute,
  row.key_id,
  row.operation,
  ...USAGE_COUNTS.map((count) => row[count]),
  ...LATENCY_COLUMNS.map((_, i) => row.latency[i] ?? 0),
];

/** The first minute no stored one reaches: the end of an open range. */
export const END_OF_TIME = '9999';

/** A row as either store reads it back (PostgreSQL's bigints as text). */
export type StoredMinuteRow = { minute: string; key_id: string; operation: string } & Record<
  string,
  string | number
>;

export const toMinuteRow = (row: StoredMinuteRow): MinuteRow => ({
  minute: row.minute,
  key_id: row.key_id,
  operation: row.operation as Operation,
  requests: Number(row.requests),
  matched: Number(row.matched),
  not_found: Number(row.not_found),
  ambiguous: Number(row.ambiguous),
  rejected: Number(row.rejected),
  latency: LATENCY_COLUMNS.map((column) => Number(row[column])),
});

/** Rows in minute, key and operation order: concurrent writers lock rows alike and cannot deadlock. */
export function minutesInOrder(rows: readonly MinuteRow[]): MinuteRow[] {
  const order = (r: MinuteRow) => `${r.minute}|${r.key_id}|${r.operation}`;
  return [...rows].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}
