// API keys, quota counts and usage on SQLite: the statements behind the key half of the Store.
import type Database from 'better-sqlite3';
import type { ApiKey, KeyChanges, Scope, StoredKey, UsageFilter, UsageRow } from '../store.js';

interface KeyRow extends Omit<StoredKey, 'scopes'> {
  scopes: string;
}

const KEY_COLUMNS =
  'id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at, previous_hash, previous_expires_at';
const KEY_COLUMNS_OF_K = KEY_COLUMNS.split(', ')
  .map((column) => `k.${column}`)
  .join(', ');
const USAGE_COLUMNS = 'key_id, day, operation, requests, matched, not_found, ambiguous, rejected';

interface KeyUpdate {
  id: string;
  name: string | null;
  scopes: string | null;
  rate: number | null;
  set_quota: 0 | 1;
  quota: number | null;
  set_expires: 0 | 1;
  expires_at: string | null;
}

const toStoredKey = (row: KeyRow): StoredKey => ({ ...row, scopes: JSON.parse(row.scopes) as Scope[] });

function prepare(db: Database.Database) {
  return {
    create: db.prepare<[Omit<KeyRow, 'previous_hash' | 'previous_expires_at'>]>(
      `INSERT INTO keys (id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at)
       VALUES (@id, @name, @hash, @scopes, @rate, @quota, @created_at, @expires_at, @revoked_at)`,
    ),
    byHash: db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = ?`),
    byRetiredHash: db.prepare<[string], KeyRow>(
      `SELECT ${KEY_COLUMNS_OF_K} FROM retired_key_hashes r JOIN keys k ON k.id = r.key_id WHERE r.hash = ?`,
    ),
    byId: db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM keys WHERE id = ?`),
    list: db.prepare<[], KeyRow>(`SELECT ${KEY_COLUMNS} FROM keys ORDER BY created_at, rowid`),
    // A null name, scopes or rate is "unchanged"; quota and expiry may be set to null, so they are
    // changed when their flag is 1.
    update: db.prepare<[KeyUpdate]>(
      `UPDATE keys SET name = coalesce(@name, name), scopes = coalesce(@scopes, scopes),
         rate = coalesce(@rate, rate),
         quota = CASE WHEN @set_quota THEN @quota ELSE quota END,
         expires_at = CASE WHEN @set_expires THEN @expires_at ELSE expires_at END
       WHERE id = @id AND revoked_at IS NULL`,
    ),
    revoke: db.prepare<[string, string]>(
      `UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
    ),
    retire: db.prepare<[string]>(
      `INSERT INTO retired_key_hashes (hash, key_id)
       SELECT hash, id FROM keys WHERE id = ? AND revoked_at IS NULL`,
    ),
    rotate: db.prepare<[string, string, string]>(
      `UPDATE keys SET previous_hash = hash, hash = ?, previous_expires_at = ?
       WHERE id = ? AND revoked_at IS NULL`,
    ),
    quotaUsed: db
      .prepare<[string, string], number>(`SELECT matched FROM quota_use WHERE key_id = ? AND period = ?`)
      .pluck(),
    addQuotaUse: db.prepare<[string, string, number]>(
      `INSERT INTO quota_use (key_id, period, matched) VALUES (?, ?, ?)
       ON CONFLICT (key_id, period) DO UPDATE SET matched = matched + excluded.matched`,
    ),
    addUsage: db.prepare<[UsageRow]>(
      `INSERT INTO key_usage (${USAGE_COLUMNS})
       VALUES (@key_id, @day, @operation, @requests, @matched, @not_found, @ambiguous, @rejected)
       ON CONFLICT (key_id, day, operation) DO UPDATE SET
         requests = requests + excluded.requests, matched = matched + excluded.matched,
         not_found = not_found + excluded.not_found, ambiguous = ambiguous + excluded.ambiguous,
         rejected = rejected + excluded.rejected`,
    ),
    usage: db.prepare<[string], UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM key_usage WHERE day >= ? ORDER BY day, key_id, operation`,
    ),
    keyUsage: db.prepare<[string, string], UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM key_usage WHERE key_id = ? AND day >= ? ORDER BY day, operation`,
    ),
  };
}

/** Keys held by hash at most; past it the cache starts afresh, so made-up tokens cannot grow it. */
const KEY_CACHE_LIMIT = 10_000;

/** The key, quota and usage statements of one connection, each prepared once. */
export class SqliteKeys {
  private readonly s: ReturnType<typeof prepare>;
  /**
   * Keys by hash (null: no such key), valid while `version()` is unchanged and cleared by this
   * connection's own key writes. The version is the serving index's keys version when there is one
   * (bumped by every key write in any process), else PRAGMA data_version (which changes when another
   * connection commits anything). So a revocation is effective on the next request, and a lookup costs
   * no key query.
   */
  private readonly cache = new Map<string, StoredKey | null>();
  private cacheVersion = -1;
  private version: () => number;
  private readonly addQuotaBatch: (period: string, counts: Map<string, number>) => void;
  private readonly addUsageBatch: (rows: UsageRow[]) => void;
  private readonly rotateOnce: (id: string, hash: string, previousExpiresAt: string) => boolean;

  constructor(db: Database.Database) {
    const s = prepare(db);
    this.s = s;
    const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.version = () => dataVersion.get()!;
    this.addQuotaBatch = db.transaction((period: string, counts: Map<string, number>) => {
      for (const [keyId, n] of counts) if (n !== 0) s.addQuotaUse.run(keyId, period, n);
    });
    this.addUsageBatch = db.transaction((rows: UsageRow[]) => {
      for (const row of rows) s.addUsage.run(row);
    });
    this.rotateOnce = db.transaction((id: string, hash: string, previousExpiresAt: string) => {
      s.retire.run(id);
      return s.rotate.run(hash, previousExpiresAt, id).changes > 0;
    });
  }

  /** From now on, cached keys are valid while this version is unchanged. */
  versionBy(version: () => number): void {
    this.version = version;
    this.cache.clear();
  }

  create(key: ApiKey): void {
    const { id, name, hash, rate, quota, created_at, expires_at, revoked_at } = key;
    const scopes = JSON.stringify(key.scopes);
    this.s.create.run({ id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at });
    this.cache.clear();
  }

  /** The current hash first: a retired hash is looked up only for a token that is not current. */
  findByHash(hash: string): StoredKey | undefined {
    const version = this.version();
    if (version !== this.cacheVersion || this.cache.size >= KEY_CACHE_LIMIT) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.s.byHash.get(hash) ?? this.s.byRetiredHash.get(hash);
    const key = row ? toStoredKey(row) : undefined;
    this.cache.set(hash, key ?? null);
    return key;
  }

  get(id: string): StoredKey | undefined {
    const row = this.s.byId.get(id);
    return row && toStoredKey(row);
  }

  list(): StoredKey[] {
    return this.s.list.all().map(toStoredKey);
  }

  update(id: string, changes: KeyChanges): boolean {
    this.cache.clear();
    return (
      this.s.update.run({
        id,
        name: changes.name ?? null,
        scopes: changes.scopes ? JSON.stringify(changes.scopes) : null,
        rate: changes.rate ?? null,
        set_quota: changes.quota === undefined ? 0 : 1,
        quota: changes.quota ?? null,
        set_expires: changes.expires_at === undefined ? 0 : 1,
        expires_at: changes.expires_at ?? null,
      }).changes > 0
    );
  }

  revoke(id: string, at: Date): boolean {
    this.cache.clear();
    return this.s.revoke.run(at.toISOString(), id).changes > 0;
  }

  rotate(id: string, hash: string, previousExpiresAt: Date): boolean {
    this.cache.clear();
    return this.rotateOnce(id, hash, previousExpiresAt.toISOString());
  }

  quotaUsed(keyId: string, period: string): number {
    return this.s.quotaUsed.get(keyId, period) ?? 0;
  }

  addQuotaUse(period: string, counts: Map<string, number>): void {
    this.addQuotaBatch(period, counts);
  }

  addUsage(rows: UsageRow[]): void {
    if (rows.length > 0) this.addUsageBatch(rows);
  }

  usage(filter: UsageFilter): UsageRow[] {
    const since = filter.since ?? '';
    return filter.keyId === undefined ? this.s.usage.all(since) : this.s.keyUsage.all(filter.keyId, since);
  }
}
