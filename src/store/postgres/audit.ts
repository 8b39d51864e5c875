// The audit log on PostgreSQL, in segments as on SQLite (../sql/audit-segments.ts): each fold's entries are one
// row of `audit_log`, found by time through its last entry's time, by key through `audit_by_key` (a row per
// key and segment) and by record through a GIN index of the hashes of the record ids the row's entries
// disclosed.
import type pg from 'pg';
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import { toAuditRow } from '../sql/audit.js';
import { recordHash, SEGMENT_SPAN_MS } from '../sql/audit-segment.js';
import {
  collectAudit,
  inReadingOrder,
  packRows,
  type SegmentTimes,
  segmentQuery,
  withoutEntriesBefore,
} from '../sql/audit-segments.js';
import { POSTGRES } from '../sql/spelling.js';
import { copyBinary } from './binary-copy.js';
import { inTransaction, type Queryable, query } from './pool.js';

/** Segments read per query of them, with their bodies, while a query looks for more. */
const PAGE = 64;

interface StoredSegment {
  id: string;
  last_at: string;
  body: Buffer;
}

const toSegment = (row: StoredSegment): SegmentTimes => ({
  id: Number(row.id),
  last_at: Number(row.last_at),
  body: row.body,
});

/** Entries whose lists are already joined, as the accounting journal carries them, in `client`'s transaction. */
export async function addAuditRows(client: pg.PoolClient, entries: AuditRow[]): Promise<void> {
  if (entries.length === 0) return;
  // Ids are drawn first, so that each table is one binary COPY.
  const segments = packRows(entries);
  const { rows } = await client.query<[string]>({
    text: "SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) FROM generate_series(1, $1)",
    values: [segments.length],
    rowMode: 'array',
  });
  const ids = rows.map(([id]) => Number(id));
  await copyBinary(
    client,
    'audit_log (id, first_at, last_at, entries, record_hashes, body)',
    segments.keys(),
    (e, i) => {
      const packed = segments[i]!;
      e.row(6).int8(ids[i]!).int8(packed.firstAt).int8(packed.lastAt).int8(packed.entries);
      e.int4Array(packed.recordHashes.map(signed)).bytea(packed.body);
    },
  );
  const keys = segments.flatMap((packed, i) =>
    packed.keys.map((key) => ({ key, at: packed.lastAt, id: ids[i]! })),
  );
  await copyBinary(client, 'audit_by_key (key_id, last_at, segment)', keys, (e, k) =>
    e.row(3).text(k.key).int8(k.at).int8(k.id),
  );
}

/** A record-id hash as an int4 holds it. */
const signed = (hash: number) => hash | 0;

export const addAudit = (pool: pg.Pool, entries: AuditEntry[]) =>
  inTransaction(pool, (client) => addAuditRows(client, entries.map(toAuditRow)));

export async function audit(db: Queryable, filter: AuditFilter): Promise<AuditEntry[]> {
  const q = segmentQuery(POSTGRES, filter);
  const segments =
    filter.recordId !== undefined
      ? await recordSegments(db, filter.recordId, q.since, q.newest)
      : timeSegments(db, filter.keyId, q.since, q.newest);
  return collectAudit(segments, q, () => undefined);
}

/** Segments from `since` in order of their last entry's time, all or a key's, read a page at a time. */
async function* timeSegments(
  db: Queryable,
  keyId: string | undefined,
  since: number,
  newest: boolean,
): AsyncGenerator<SegmentTimes> {
  const [compare, direction] = newest ? ['<', 'DESC'] : ['>', 'ASC'];
  const text =
    keyId === undefined
      ? `SELECT s.id, s.last_at, s.body FROM audit_log s
         WHERE s.last_at >= $1 AND (s.last_at, s.id) ${compare} ($2, $3)
         ORDER BY s.last_at ${direction}, s.id ${direction} LIMIT ${PAGE}`
      : `SELECT s.id, s.last_at, s.body FROM audit_by_key k JOIN audit_log s ON s.id = k.segment
         WHERE k.key_id = $4 AND k.last_at >= $1 AND (k.last_at, k.segment) ${compare} ($2, $3)
         ORDER BY k.last_at ${direction}, k.segment ${direction} LIMIT ${PAGE}`;
  let after = newest ? [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : [-Number.MAX_SAFE_INTEGER, 0];
  for (;;) {
    const values = keyId === undefined ? [since, ...after] : [since, ...after, keyId];
    const { rows } = await query<StoredSegment>(db, { text, values });
    const page = rows.map(toSegment);
    yield* page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = [last.last_at, last.id];
  }
}

/** The segments whose entries may have disclosed a record (their hashes hold its), from `since`. */
async function recordSegments(
  db: Queryable,
  recordId: string,
  since: number,
  newest: boolean,
): Promise<SegmentTimes[]> {
  const { rows } = await query<StoredSegment>(db, {
    text: `SELECT id, last_at, body FROM audit_log WHERE record_hashes @> ARRAY[$2::integer] AND last_at >= $1`,
    values: [since, signed(recordHash(recordId))],
  });
  return inReadingOrder(rows.map(toSegment), newest);
}

/** Removes entries older than `before`: whole segments, and the older entries of one that straddles it. */
export function pruneAudit(pool: pg.Pool, before: Date): Promise<number> {
  const cut = before.getTime();
  return inTransaction(pool, async (client) => {
    const { rows: gone } = await client.query<{ entries: string }>({
      text: 'DELETE FROM audit_log WHERE last_at < $1 RETURNING entries',
      values: [cut],
    });
    let pruned = gone.reduce((sum, row) => sum + Number(row.entries), 0);
    await client.query({ text: 'DELETE FROM audit_by_key WHERE last_at < $1', values: [cut] });
    // A segment keeps its newer entries under its id and last time, with its record hashes and key rows as
    // they were: a query checks each entry it reads.
    const { rows: straddling } = await client.query<{ id: string; body: Buffer }>({
      text: 'SELECT id, body FROM audit_log WHERE last_at >= $1 AND last_at < $2 AND first_at < $1 FOR UPDATE',
      values: [cut, cut + SEGMENT_SPAN_MS],
    });
    for (const { id, body } of straddling) {
      const { packed, pruned: older } = withoutEntriesBefore(body, cut);
      pruned += older;
      await client.query({
        text: 'UPDATE audit_log SET first_at = $1, last_at = $2, entries = $3, body = $4 WHERE id = $5',
        values: [packed.firstAt, packed.lastAt, packed.entries, packed.body, id],
      });
    }
    return pruned;
  });
}
