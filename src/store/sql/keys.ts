// The statements of the keys role, written once for both stores: they differ only in casts and in the
// column that keeps the order keys were created in.
import type { Scope } from '../../vocabulary/operations.js';
import type { ApiKey, KeyChanges } from '../keys.js';
import type { Spelling } from './spelling.js';

/** The columns a new key is written with, in parameter order. */
const NEW_KEY_COLUMNS = [
  'id',
  'name',
  'hash',
  'scopes',
  'rate',
  'quota',
  'search_quota',
  'created_at',
  'expires_at',
  'revoked_at',
] as const;
const STORED_KEY_COLUMNS = [...NEW_KEY_COLUMNS, 'previous_hash', 'previous_expires_at'];

/** The columns a key is read back with. */
export const KEY_COLUMNS = STORED_KEY_COLUMNS.join(', ');
const columnsOfK = STORED_KEY_COLUMNS.map((column) => `k.${column}`).join(', ');

export function keyStatements(s: Spelling) {
  return {
    create: `INSERT INTO api_keys (${NEW_KEY_COLUMNS.join(', ')})
             VALUES (${NEW_KEY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
    byHash: `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`,
    byRetiredHash: `SELECT ${columnsOfK} FROM retired_key_hashes r JOIN api_keys k ON k.id = r.key_id
                    WHERE r.hash = $1`,
    byId: `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`,
    list: `SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, ${s.insertionOrder}`,
    // A null name, scopes or rate is "unchanged"; quotas and expiry may become null, so each has a flag.
    update: `UPDATE api_keys SET name = coalesce($2, name), scopes = coalesce(${s.typed('$3', 'text[]')}, scopes),
               rate = coalesce(${s.typed('$4', 'double precision')}, rate),
               quota = CASE WHEN ${s.typed('$5', 'boolean')} THEN ${s.typed('$6', 'bigint')} ELSE quota END,
               expires_at = CASE WHEN ${s.typed('$7', 'boolean')} THEN ${s.typed('$8', 'text')} ELSE expires_at END,
               search_quota = CASE WHEN ${s.typed('$9', 'boolean')} THEN ${s.typed('$10', 'bigint')} ELSE search_quota END
             WHERE id = $1 AND revoked_at IS NULL`,
    revoke: 'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
    // RETURNING gives the row as updated, whose previous hash is the one it had, whatever rotation
    // committed just before: that hash is then retired, in the same transaction.
    rotate: `UPDATE api_keys SET previous_hash = hash, hash = $2, previous_expires_at = $3
             WHERE id = $1 AND revoked_at IS NULL RETURNING previous_hash`,
    retire: 'INSERT INTO retired_key_hashes (hash, key_id) VALUES ($1, $2)',
  };
}

/** A new key's values, in the order of `create`'s parameters; `scopes` as the backend stores a list. */
export const newKeyValues = <L>(key: ApiKey, scopes: L) =>
  NEW_KEY_COLUMNS.map((column) => (column === 'scopes' ? scopes : (key[column] ?? null)));

/** A key's changes, in the order of `update`'s parameters after the id; flags as the backend stores them. */
export function keyChangeValues<L, F>(
  changes: KeyChanges,
  scopes: (list: Scope[]) => L,
  flag: (set: boolean) => F,
) {
  return [
    changes.name ?? null,
    changes.scopes ? scopes(changes.scopes) : null,
    changes.rate ?? null,
    flag(changes.quota !== undefined),
    changes.quota ?? null,
    flag(changes.expires_at !== undefined),
    changes.expires_at ?? null,
    flag(changes.search_quota !== undefined),
    changes.search_quota ?? null,
  ];
}
