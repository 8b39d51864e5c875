// The keys role on PostgreSQL: the shared statements (../sql/keys.ts), on the primary except key lookups.
import type pg from 'pg';
import type { Scope } from '../../vocabulary/operations.js';
import { KeysByHash } from '../key-cache.js';
import type { ApiKey, KeyChanges, KeyStore, StoredKey } from '../keys.js';
import type { LocalIndex } from '../local/local-index.js';
import type { MaybePromise } from '../maybe-promise.js';
import { KEY_COLUMNS, keyChangeValues, keyStatements, newKeyValues } from '../sql/keys.js';
import { POSTGRES } from '../sql/spelling.js';
import { inTransaction, query } from './pool.js';

/** A key as PostgreSQL gives it back: its quotas as a bigint's text. */
export interface KeyRow extends Omit<StoredKey, 'quota' | 'search_quota'> {
  quota: string | null;
  search_quota: string | null;
}

export const toStoredKey = (row: KeyRow): StoredKey => ({
  ...row,
  scopes: row.scopes as Scope[],
  quota: row.quota === null ? null : Number(row.quota),
  search_quota: row.search_quota === null ? null : Number(row.search_quota),
});

const SQL = keyStatements(POSTGRES);

/**
 * Looked up on every request without a local index (and for a hash it does not hold), so a named prepared
 * statement that may run on a replica. It also matches the hash a key had before its last rotation, so that a token in its grace
 * period costs one query too; only a token that matches neither (unknown, or rotated out twice or more)
 * costs a second, of the retired hashes.
 */
const BY_HASH_OR_PREVIOUS = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1 OR previous_hash = $1
  ORDER BY hash = $1 DESC LIMIT 1`;

export class PostgresKeys implements KeyStore {
  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool,
  ) {}

  async createKey(key: ApiKey): Promise<void> {
    await query(this.primary, { text: SQL.create, values: newKeyValues(key, key.scopes) });
  }

  private local: LocalIndex | undefined;
  /** Keys read from the local index, by hash, valid while its keys stamp is unchanged. */
  private readonly cache = new KeysByHash();

  /**
   * From now on a key is found in the local index, which its follower keeps current (a revocation made
   * anywhere is seen within its round); a hash it does not hold (a key made a moment ago) is asked of
   * PostgreSQL.
   */
  serveFrom(index: LocalIndex): void {
    this.local = index;
  }

  findKeyByHash(hash: string): MaybePromise<StoredKey | undefined> {
    const local = this.local;
    if (local?.ready()) {
      const cached = this.cache.get(hash, local.keysStamp());
      if (cached) return cached;
      const held = local.key(hash);
      if (held) {
        this.cache.set(hash, held);
        return held;
      }
    }
    return this.findInStore(hash);
  }

  private async findInStore(hash: string): Promise<StoredKey | undefined> {
    const { rows } = await query<KeyRow>(this.replica, {
      name: 'enrich_key_by_hash_or_previous',
      text: BY_HASH_OR_PREVIOUS,
      values: [hash],
    });
    if (rows[0]) return toStoredKey(rows[0]);
    const retired = await query<KeyRow>(this.replica, {
      name: 'enrich_key_by_retired_hash',
      text: SQL.byRetiredHash,
      values: [hash],
    });
    return retired.rows[0] && toStoredKey(retired.rows[0]);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    const { rows } = await query<KeyRow>(this.primary, { text: SQL.byId, values: [id] });
    return rows[0] && toStoredKey(rows[0]);
  }

  async listKeys(): Promise<StoredKey[]> {
    const { rows } = await query<KeyRow>(this.primary, { text: SQL.list });
    return rows.map(toStoredKey);
  }

  async updateKey(id: string, changes: KeyChanges): Promise<boolean> {
    const values = keyChangeValues(
      changes,
      (scopes) => scopes,
      (set) => set,
    );
    const { rowCount } = await query(this.primary, { text: SQL.update, values: [id, ...values] });
    return rowCount === 1;
  }

  async revokeKey(id: string, at: Date): Promise<boolean> {
    const { rowCount } = await query(this.primary, { text: SQL.revoke, values: [id, at.toISOString()] });
    return rowCount === 1;
  }

  /** The key's row is locked by the update until the retired hash is written. */
  rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean> {
    return inTransaction(this.primary, async (client) => {
      const rotated = await client.query<{ previous_hash: string }>({
        text: SQL.rotate,
        values: [id, hash, previousExpiresAt.toISOString()],
      });
      const previous = rotated.rows[0]?.previous_hash;
      if (previous === undefined) return false;
      await client.query({ text: SQL.retire, values: [previous, id] });
      return true;
    });
  }
}
