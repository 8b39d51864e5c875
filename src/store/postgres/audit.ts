// The audit log on PostgreSQL: one row per lookup and an index row per record id it disclosed (deleted with
// it); the list encoding and the queries not by record are shared (../sql/audit.ts).
import type pg from 'pg';
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
import { copyBinary } from './binary-copy.js';
import { inTransaction, type Queryable, query } from './pool.js';

const QUERIES = { ASC: auditQueries('ASC'), DESC: auditQueries('DESC') };

/** Entries whose lists are already joined, as the accounting journal carries them, in `client`'s transaction. */
export async function addAuditRows(client: pg.PoolClient, entries: AuditRow[]): Promise<void> {
  if (entries.length === 0) return;
  // Ids drawn first, so that the entries and their record-id index rows are each one binary COPY (a third
  // of PostgreSQL's time per audited lookup less than one INSERT from unnest()).
  const { rows } = await client.query<[string]>({
    text: "SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) FROM generate_series(1, $1)",
    values: [entries.length],
    rowMode: 'array',
  });
  const ids = rows.map(([id]) => Number(id));
  const at = entries.map((e) => Date.parse(e.at));
  const invalid = at.findIndex((ms) => !Number.isFinite(ms));
  if (invalid >= 0) throw new RangeError(`an audit entry's time is not a time: ${entries[invalid]!.at}`);
  await copyBinary(
    client,
    'audit_log (id, at, key_id, operation, params, matched, status)',
    entries.keys(),
    (e, i) => {
      const row = entries[i]!;
      e.row(7).int8(ids[i]!).timestamptz(at[i]!).text(row.key_id).text(row.operation);
      e.text(row.params).text(row.matched).int2(row.status);
    },
  );
  await copyBinary(client, 'audit_match (record_id, audit_id)', matches(entries, ids), (e, [record, id]) =>
    e.row(2).text(record).int8(id),
  );
}

/** Each entry's distinct record ids, with its id. */
function* matches(entries: AuditRow[], ids: number[]): Generator<[string, number]> {
  for (const [i, entry] of entries.entries()) {
    if (entry.matched === '') continue;
    for (const record of new Set(entry.matched.split(','))) yield [record, ids[i]!];
  }
}

export const addAudit = (pool: pg.Pool, entries: AuditEntry[]) =>
  inTransaction(pool, (client) => addAuditRows(client, entries.map(toAuditRow)));

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
