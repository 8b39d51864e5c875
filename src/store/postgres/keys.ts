// API keys and quota counts on PostgreSQL: always read and written on the primary, except key lookups.
import type pg from 'pg';
import type { ApiKey, KeyChanges, Scope, StoredKey } from '../store.js';
import { type Queryable, query } from './pool.js';

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  scopes: string[];
  rate: number;
  quota: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  previous_hash: string | null;
  previous_expires_at: string | null;
}

const KEY_COLUMNS = 'id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at';
const STORED_KEY_COLUMNS = `${KEY_COLUMNS}, previous_hash, previous_expires_at`;
const STORED_KEY_COLUMNS_OF_K = STORED_KEY_COLUMNS.split(', ')
  .map((column) => `k.${column}`)
  .join(', ');

const toApiKey = (row: KeyRow): StoredKey => ({
  ...row,
  scopes: row.scopes as Scope[],
  quota: row.quota === null ? null : Number(row.quota),
});

export async function createKey(primary: pg.Pool, key: ApiKey): Promise<void> {
  await query(primary, {
    text: `INSERT INTO api_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    values: [
      key.id,
      key.name,
      key.hash,
      key.scopes,
      key.rate,
      key.quota,
      key.created_at,
      key.expires_at,
      key.revoked_at,
    ],
  });
}

/**
 * Looked up on every request, so a named prepared statement; may run on a replica. Matches the
 * current hash or, after a rotation, the previous one; only a token that matches neither (unknown, or
 * rotated out twice or more) costs a second query, of the retired hashes.
 */
export async function findKeyByHash(pool: pg.Pool, hash: string): Promise<StoredKey | undefined> {
  const { rows } = await query<KeyRow>(pool, {
    name: 'enrich_key_by_hash_or_previous',
    text: `SELECT ${STORED_KEY_COLUMNS} FROM api_keys WHERE hash = $1 OR previous_hash = $1
           ORDER BY hash = $1 DESC LIMIT 1`,
    values: [hash],
  });
  if (rows[0]) return toApiKey(rows[0]);
  const retired = await query<KeyRow>(pool, {
    name: 'enrich_key_by_retired_hash',
    text: `SELECT ${STORED_KEY_COLUMNS_OF_K} FROM retired_key_hashes r JOIN api_keys k ON k.id = r.key_id
           WHERE r.hash = $1`,
    values: [hash],
  });
  return retired.rows[0] && toApiKey(retired.rows[0]);
}

export async function getKey(primary: pg.Pool, id: string): Promise<StoredKey | undefined> {
  const { rows } = await query<KeyRow>(primary, {
    text: `SELECT ${STORED_KEY_COLUMNS} FROM api_keys WHERE id = $1`,
    values: [id],
  });
  return rows[0] && toApiKey(rows[0]);
}

export async function listKeys(primary: pg.Pool): Promise<StoredKey[]> {
  const { rows } = await query<KeyRow>(primary, {
    text: `SELECT ${STORED_KEY_COLUMNS} FROM api_keys ORDER BY created_at, seq`,
  });
  return rows.map(toApiKey);
}

export async function rotateKey(
  primary: pg.Pool,
  id: string,
  hash: string,
  previousExpiresAt: Date,
): Promise<boolean> {
  // The replaced hash is retired in the same statement: RETURNING gives the row as updated, whose
  // previous_hash is the hash it had, whatever rotation committed just before.
  const { rowCount } = await query(primary, {
    text: `WITH rotated AS (
             UPDATE api_keys SET previous_hash = hash, hash = $2, previous_expires_at = $3
             WHERE id = $1 AND revoked_at IS NULL
             RETURNING id, previous_hash
           )
           INSERT INTO retired_key_hashes (hash, key_id) SELECT previous_hash, id FROM rotated`,
    values: [id, hash, previousExpiresAt.toISOString()],
  });
  return rowCount === 1;
}

/** A null name, scopes or rate is "unchanged"; quota and expiry may become null, so each has a flag. */
export async function updateKey(primary: pg.Pool, id: string, changes: KeyChanges): Promise<boolean> {
  const { rowCount } = await query(primary, {
    text: `UPDATE api_keys SET name = coalesce($2, name), scopes = coalesce($3::text[], scopes),
             rate = coalesce($4::double precision, rate),
             quota = CASE WHEN $5::boolean THEN $6::bigint ELSE quota END,
             expires_at = CASE WHEN $7::boolean THEN $8::text ELSE expires_at END
           WHERE id = $1 AND revoked_at IS NULL`,
    values: [
      id,
      changes.name ?? null,
      changes.scopes ?? null,
      changes.rate ?? null,
      changes.quota !== undefined,
      changes.quota ?? null,
      changes.expires_at !== undefined,
      changes.expires_at ?? null,
    ],
  });
  return rowCount === 1;
}

export async function revokeKey(primary: pg.Pool, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await query(primary, {
    text: 'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
    values: [id, at.toISOString()],
  });
  return rowCount === 1;
}

export async function quotaUsed(primary: pg.Pool, keyId: string, period: string): Promise<number> {
  const { rows } = await query<{ matched: string }>(primary, {
    name: 'enrich_quota_used',
    text: 'SELECT matched FROM quota_use WHERE key_id = $1 AND period = $2',
    values: [keyId, period],
  });
  return rows[0] ? Number(rows[0].matched) : 0;
}

/** One statement for all keys, in key order so concurrent flushes lock rows alike and cannot deadlock. */
export async function addQuotaUse(
  primary: Queryable,
  period: string,
  counts: Map<string, number>,
): Promise<void> {
  const entries = [...counts].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return;
  await query(primary, {
    text: `INSERT INTO quota_use (key_id, period, matched)
           SELECT key_id, $1, matched FROM unnest($2::text[], $3::bigint[]) AS u(key_id, matched)
           ON CONFLICT (key_id, period) DO UPDATE SET matched = quota_use.matched + EXCLUDED.matched`,
    values: [period, entries.map(([id]) => id), entries.map(([, n]) => n)],
  });
}
