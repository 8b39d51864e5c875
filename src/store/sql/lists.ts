// The statements of the lists role, written once for both stores; claiming a job differs by backend
// (sqlite/lists.ts: a write transaction; postgres/lists.ts: a row lock skipped by other claimers).
import type { ListProgress } from '../lists.js';
import type { Spelling } from './spelling.js';

export const LIST_COLUMNS =
  'id, key_id, entity, format, options, mapping, status, rows, processed, matched, not_found, ambiguous, ' +
  'invalid, quota_exceeded, output_bytes, problem, created_at, started_at, finished_at, expires_at';

/** A job waiting to be claimed: queued, or running under a lease that ran out before `now`. */
export const waiting = (now: string) =>
  `(status = 'queued' OR (status = 'running' AND lease_until < ${now}))`;

export const listStatements = (s: Spelling) => ({
  create: `INSERT INTO lists (id, key_id, entity, format, options, mapping, status, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8)`,
  get: `SELECT ${LIST_COLUMNS} FROM lists WHERE key_id = $1 AND id = $2`,
  page: `SELECT ${LIST_COLUMNS} FROM lists WHERE key_id = $1 ORDER BY created_at DESC, ${s.bytewise('id')} DESC LIMIT $2`,
  pageAfter: `SELECT ${LIST_COLUMNS} FROM lists WHERE key_id = $1
              AND (created_at, ${s.bytewise('id')}) <
                  (SELECT created_at, ${s.bytewise('id')} FROM lists WHERE key_id = $1 AND id = $3)
              ORDER BY created_at DESC, ${s.bytewise('id')} DESC LIMIT $2`,
  delete: 'DELETE FROM lists WHERE key_id = $1 AND id = $2',
  /** Takes the job of `id` (a statement of the claimed job's id, over $3, the time now) for $1 until $2. */
  take: (id: string) => `UPDATE lists SET status = 'running', lease_owner = $1, lease_until = $2,
           started_at = COALESCE(started_at, $3) WHERE id = ${id} RETURNING ${LIST_COLUMNS}`,
  advance: `UPDATE lists SET rows = $3, processed = $4, matched = $5, not_found = $6, ambiguous = $7,
              invalid = $8, quota_exceeded = $9, output_bytes = $10, lease_until = $11
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  finish: `UPDATE lists SET status = $3, problem = $4, finished_at = $5, expires_at = $6, lease_owner = NULL,
             lease_until = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  release: `UPDATE lists SET status = 'queued', lease_owner = NULL, lease_until = NULL
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  prune: 'DELETE FROM lists WHERE expires_at < $1 RETURNING id',
});

/** The values of `advance` after the id and owner. */
export const advanceValues = (p: ListProgress & { rows: number | null }, leaseUntil: string) => [
  p.rows,
  p.processed,
  p.matched,
  p.not_found,
  p.ambiguous,
  p.invalid,
  p.quota_exceeded,
  p.output_bytes,
  leaseUntil,
];
