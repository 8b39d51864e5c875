// Per-minute counts on PostgreSQL: the shared statements (../sql/minutes.ts), every row of a flush in one
// statement.
import type { MinuteFilter, MinuteRow } from '../accounting.js';
import {
  END_OF_TIME,
  minuteStatements,
  minutesInOrder,
  minuteValues,
  type StoredMinuteRow,
  toMinuteRow,
} from '../sql/minutes.js';
import { POSTGRES } from '../sql/spelling.js';
import { type Queryable, query } from './pool.js';

const SQL = minuteStatements(POSTGRES);

export async function addMinutes(db: Queryable, rows: MinuteRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = minutesInOrder(rows).map(minuteValues);
  const columns = Array.from({ length: values[0]!.length }, (_, i) => values.map((row) => row[i]));
  await query(db, { text: SQL.add, values: columns });
}

export async function minutes(db: Queryable, filter: MinuteFilter): Promise<MinuteRow[]> {
  const until = filter.until ?? END_OF_TIME;
  const { rows } =
    filter.keyId === undefined
      ? await query<StoredMinuteRow>(db, { text: SQL.all, values: [filter.since, until] })
      : await query<StoredMinuteRow>(db, { text: SQL.ofKey, values: [filter.since, until, filter.keyId] });
  return rows.map(toMinuteRow);
}

export async function pruneMinutes(db: Queryable, before: string): Promise<number> {
  const result = await query(db, { text: SQL.prune, values: [before] });
  return result.rowCount ?? 0;
}
