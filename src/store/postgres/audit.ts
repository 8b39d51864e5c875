// The audit log on PostgreSQL: one row per lookup and an index row per record id it disclosed (deleted with
// it); the list encoding and the queries not by record are shared (../sql/audit.ts).
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import {
  AUDIT_COLUMNS,
  auditBounds,
  auditOrder,
  auditQueries,
  PRUNE_AUDIT,
  type StoredAuditRow,
  toAuditEntry,
  toAuditRow,
} from '../sql/audit.js';
import { POSTGRES } from '../sql/spelling.js';
import { type Queryable, query } from './pool.js';

const QUERIES = { ASC: auditQueries('ASC'), DESC: auditQueries('DESC') };

/** Entries whose lists are already joined, as the accounting journal carries them. */
export async function addAuditRows(db: Queryable, entries: AuditRow[]): Promise<void> {
  if (entries.length === 0) return;
  // One statement for a whole batch: ids are drawn first (a CTE used twice is evaluated once), so that
  // the entries and their record-id index rows are written together.
  await query(db, {
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

export const addAudit = (db: Queryable, entries: AuditEntry[]) => addAuditRows(db, entries.map(toAuditRow));

export async function audit(db: Queryable, filter: AuditFilter): Promise<AuditEntry[]> {
  const { since, limit } = auditBounds(POSTGRES, filter);
  const direction = filter.newestFirst ? 'DESC' : 'ASC';
  const { rows } =
    filter.recordId !== undefined
      ? await query<StoredAuditRow>(db, {
          text: `SELECT ${AUDIT_COLUMNS} FROM audit_match m JOIN audit_log a ON a.id = m.audit_id
                 WHERE m.record_id = $1 AND ($2::text IS NULL OR a.key_id = $2) AND a.at >= $3
                 ${auditOrder(direction)} LIMIT $4`,
          values: [filter.recordId, filter.keyId ?? null, since, limit],
        })
      : filter.keyId !== undefined
        ? await query<StoredAuditRow>(db, {
            text: QUERIES[direction].byKey,
            values: [filter.keyId, since, limit],
          })
        : await query<StoredAuditRow>(db, { text: QUERIES[direction].all, values: [since, limit] });
  return rows.map(toAuditEntry);
}

/** Index rows go with their entries, in the same statement (audit_match has no foreign key: migration 19). */
export async function pruneAudit(db: Queryable, before: Date): Promise<number> {
  const { rows } = await query<{ pruned: string }>(db, {
    text: `WITH gone AS (${PRUNE_AUDIT} RETURNING id),
           matches AS (DELETE FROM audit_match WHERE audit_id IN (SELECT id FROM gone))
           SELECT count(*) AS pruned FROM gone`,
    values: [before.toISOString()],
  });
  return Number(rows[0]!.pruned);
}
