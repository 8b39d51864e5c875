// The audit log on PostgreSQL: one row per lookup and an index row per record id it disclosed.
import type pg from 'pg';
import type { AuditEntry, AuditFilter, AuditRow, Operation } from '../store.js';
import { type Queryable, query } from './pool.js';

interface Row {
  at: Date;
  key_id: string;
  operation: string;
  params: string;
  matched: string;
  status: number;
}

const splitList = (text: string) => (text === '' ? [] : text.split(','));

const toAuditEntry = (row: Row): AuditEntry => ({
  at: row.at.toISOString(),
  key_id: row.key_id,
  operation: row.operation as Operation,
  params: splitList(row.params),
  matched: splitList(row.matched),
  status: row.status,
});

/**
 * One statement for a whole batch: ids are drawn first (a CTE used twice is evaluated once), so
 * that the entries and their record-id index rows are written together.
 */
export async function addAudit(primary: Queryable, entries: AuditEntry[]): Promise<void> {
  await addAuditRows(
    primary,
    entries.map((e) => ({ ...e, params: e.params.join(','), matched: e.matched.join(',') })),
  );
}

/** Entries whose lists are already joined, as the accounting journal carries them. */
export async function addAuditRows(primary: Queryable, entries: AuditRow[]): Promise<void> {
  if (entries.length === 0) return;
  await query(primary, {
    text: `WITH input AS (
             SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) AS id, u.*
             FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[])
               AS u(at, key_id, operation, params, matched, status)
           ), entries AS (
             INSERT INTO audit_log (id, at, key_id, operation, params, matched, status)
             SELECT id, at, key_id, operation, params, matched, status FROM input
           )
           INSERT INTO audit_match (record_id, audit_id)
           SELECT DISTINCT record_id, id FROM input, unnest(string_to_array(matched, ',')) AS record_id
           WHERE matched <> ''`,
    values: [
      entries.map((e) => e.at),
      entries.map((e) => e.key_id),
      entries.map((e) => e.operation),
      entries.map((e) => e.params),
      entries.map((e) => e.matched),
      entries.map((e) => e.status),
    ],
  });
}

/** Unbounded reads are capped here rather than trusted to the caller. */
const MAX_ROWS = 1_000_000;

export async function audit(primary: pg.Pool, filter: AuditFilter): Promise<AuditEntry[]> {
  const columns = 'a.at, a.key_id, a.operation, a.params, a.matched, a.status';
  const byRecord = filter.recordId !== undefined;
  const direction = filter.newestFirst ? 'DESC' : 'ASC';
  const { rows } = await query<Row>(primary, {
    text: `SELECT ${columns}
           FROM ${byRecord ? 'audit_match m JOIN audit_log a ON a.id = m.audit_id' : 'audit_log a'}
           WHERE ${byRecord ? 'm.record_id = $4' : '$4::text IS NULL'}
             AND ($1::text IS NULL OR a.key_id = $1)
             AND ($2::timestamptz IS NULL OR a.at >= $2)
           ORDER BY a.at ${direction}, a.id ${direction} LIMIT $3`,
    values: [
      filter.keyId ?? null,
      filter.since === undefined ? null : new Date(filter.since).toISOString(),
      filter.limit ?? MAX_ROWS,
      filter.recordId ?? null,
    ],
  });
  return rows.map(toAuditEntry);
}

/** Index rows go with their entries (ON DELETE CASCADE). */
export async function pruneAudit(primary: pg.Pool, before: Date): Promise<number> {
  const { rowCount } = await query(primary, {
    text: 'DELETE FROM audit_log WHERE at < $1',
    values: [before.toISOString()],
  });
  return rowCount ?? 0;
}
