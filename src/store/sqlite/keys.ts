// The keys role on SQLite: the shared statements (../sql/keys.ts), and keys held in memory by hash, valid
// until any process changes a key, so that a lookup authenticates without a query.
import type Database from 'better-sqlite3';
import type { Scope } from '../../vocabulary/operations.js';
import { KeysByHash } from '../key-cache.js';
import type { ApiKey, KeyChanges, KeyStore, StoredKey } from '../keys.js';
import type { ServingIndex } from '../serving/serving-index.js';
import { keyChangeValues, keyStatements, newKeyValues } from '../sql/keys.js';
import { SQLITE } from '../sql/spelling.js';
import { numbered } from './numbered.js';
import type { TurnSnapshot } from './snapshot.js';

/** A key as SQLite holds it: its scopes as JSON text. */
interface KeyRow extends Omit<StoredKey, 'scopes'> {
  scopes: string;
}

const toStoredKey = (row: KeyRow): StoredKey => ({ ...row, scopes: JSON.parse(row.scopes) as Scope[] });

const SQL = keyStatements(SQLITE);

function prepare(db: Database.Database) {
  return {
    create: db.prepare<[Record<number, unknown>]>(SQL.create),
    byHash: db.prepare<[Record<number, unknown>], KeyRow>(SQL.byHash),
    byRetiredHash: db.prepare<[Record<number, unknown>], KeyRow>(SQL.byRetiredHash),
    byId: db.prepare<[Record<number, unknown>], KeyRow>(SQL.byId),
    list: db.prepare<[], KeyRow>(SQL.list),
    update: db.prepare<[Record<number, unknown>]>(SQL.update),
    revoke: db.prepare<[Record<number, unknown>]>(SQL.revoke),
    rotate: db.prepare<[Record<number, unknown>], { previous_hash: string }>(SQL.rotate),
    retire: db.prepare<[Record<number, unknown>]>(SQL.retire),
  };
}

/** The key statements of one connection, each prepared once; every write ends this turn's snapshot. */
export class SqliteKeys implements KeyStore {
  private readonly statements: ReturnType<typeof prepare>;
  /**
   * Keys by hash (null: no such key), valid while `version()` is unchanged and cleared by this
   * connection's own key writes. The version is the serving index's keys version when there is one
   * (bumped by every key write in any process), else PRAGMA data_version (which changes when another
   * connection commits anything). So a revocation is effective on the next request, and a lookup costs
   * no key query.
   */
  private readonly cache = new KeysByHash();
  private version: () => number;
  private index: ServingIndex | undefined;
  private readonly rotateOnce: (id: string, hash: string, previousExpiresAt: string) => boolean;

  constructor(
    db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    const statements = prepare(db);
    this.statements = statements;
    const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.version = () => dataVersion.get()!;
    this.rotateOnce = db.transaction((id: string, hash: string, previousExpiresAt: string) => {
      const rotated = statements.rotate.get(numbered(id, hash, previousExpiresAt));
      if (rotated === undefined) return false;
      statements.retire.run(numbered(rotated.previous_hash, id));
      return true;
    });
  }

  /**
   * From now on key writes go through the serving index's write protocol (every server sees them on its
   * next request), and cached keys are valid while its keys version is unchanged.
   */
  serveFrom(index: ServingIndex): void {
    this.index = index;
    this.version = () => index.keysVersion();
    this.cache.clear();
  }

  /** A key write: this turn's snapshot ended first, the cache cleared, other servers told. */
  private write<T>(write: () => T): T {
    this.snapshot.end();
    this.cache.clear();
    return this.index ? this.index.write('keys', [], () => ({ result: write() })) : write();
  }

  async createKey(key: ApiKey): Promise<void> {
    this.write(() => this.statements.create.run(numbered(...newKeyValues(key, JSON.stringify(key.scopes)))));
  }

  /** The current hash first: a retired hash is looked up only for a token that is not current. */
  findKeyByHash(hash: string): StoredKey | undefined {
    if (!this.index) this.snapshot.enter();
    const cached = this.cache.get(hash, this.version());
    if (cached !== undefined) return cached ?? undefined;
    const row = this.statements.byHash.get({ 1: hash }) ?? this.statements.byRetiredHash.get({ 1: hash });
    const key = row ? toStoredKey(row) : undefined;
    this.cache.set(hash, key ?? null);
    return key;
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    const row = this.statements.byId.get({ 1: id });
    return row && toStoredKey(row);
  }

  async listKeys(): Promise<StoredKey[]> {
    return this.statements.list.all().map(toStoredKey);
  }

  async updateKey(id: string, changes: KeyChanges): Promise<boolean> {
    const values = keyChangeValues(
      changes,
      (scopes) => JSON.stringify(scopes),
      (set) => (set ? 1 : 0),
    );
    return this.write(() => this.statements.update.run(numbered(id, ...values)).changes > 0);
  }

  async revokeKey(id: string, at: Date): Promise<boolean> {
    return this.write(() => this.statements.revoke.run(numbered(id, at.toISOString())).changes > 0);
  }

  async rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean> {
    return this.write(() => this.rotateOnce(id, hash, previousExpiresAt.toISOString()));
  }
}
