// The SQLite backend of the Store: one file, WAL, every statement prepared once at open.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { CompanyFilters, PeopleFilters, SearchPage, SearchQuery } from '../../search/query.js';
import { ServingIndex } from '../serving/serving-index.js';
import type {
  AccountingBatch,
  ApiKey,
  AuditEntry,
  AuditFilter,
  BulkLoad,
  Entity,
  IdentifierKind,
  KeyChanges,
  RecordToStore,
  ServedRecord,
  Store,
  StoredKey,
  StoredRecord,
  UpsertCounts,
  UsageFilter,
  UsageRow,
} from '../store.js';
import { SqliteAudit } from './audit.js';
import { type BulkRow, SqliteBulk } from './bulk.js';
import { SqliteJournal } from './journal.js';
import { SqliteKeys } from './keys.js';
import { SqliteRecords } from './records.js';
import { applyPragmas, checkSchema, KIND_CODES, migrate } from './schema.js';
import { SqliteSearch } from './search.js';
import { registerSearchFunctions, SqliteSearchWrites } from './search-writes.js';
import { TurnSnapshot } from './snapshot.js';

export interface SqliteStoreOptions {
  /** Open an existing database without writing to it (no migration, no WAL switch). */
  readonly?: boolean;
  /**
   * Lookups (records and keys) of one event-loop turn read one snapshot, in one transaction, so each
   * costs no file locking; a commit elsewhere is seen from the next turn (for a server).
   */
  turnSnapshots?: boolean;
  /**
   * Keep the serving index beside the file (default true; never for `:memory:` or read-only): lookups
   * read it without SQL, and every record write keeps it in line. Off only for a connection that
   * writes no records (the accounting writer thread).
   */
  servingIndex?: boolean;
}

/** Rows fetched per page by exportBodies: bounds memory without holding a read open across awaits. */
const EXPORT_PAGE = 1000;

/** A record as a bulk load writes it: id, etag, body, its identifier list and search facts. */
const bulkRow = ({ id, etag, body, identifiers, facts }: RecordToStore): BulkRow => ({
  id,
  etag,
  body,
  idents: JSON.stringify(identifiers.map(({ kind, value }) => [KIND_CODES[kind], value])),
  facts,
});

/** How often a server's store checks that its serving index is current (repairs after a writer's crash). */
const RECONCILE_EVERY_MS = 1000;

/** Where the serving index of a SQLite file lives: beside it. */
export const servingIndexPath = (dbPath: string) => `${dbPath}-index`;

/** The Store on SQLite. Methods are async to honour the interface but run synchronously. */
export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly records: SqliteRecords;
  private readonly keys: SqliteKeys;
  private readonly audit_: SqliteAudit;
  private readonly ping_: Database.Statement<[], number>;
  private readonly dataVersion_: Database.Statement<[], number>;
  private readonly journal: SqliteJournal;
  private readonly bulk: SqliteBulk;
  private readonly search: SqliteSearch;
  private snapshot: TurnSnapshot | undefined;
  private index: ServingIndex | undefined;
  private reconciler: NodeJS.Timeout | undefined;

  constructor(private readonly db: Database.Database) {
    const searchWrites = new SqliteSearchWrites(db);
    this.records = new SqliteRecords(db, searchWrites);
    this.keys = new SqliteKeys(db);
    this.audit_ = new SqliteAudit(db);
    this.journal = new SqliteJournal(db, this.keys, this.audit_);
    this.bulk = new SqliteBulk(db, () => this.records.nextGeneration(), searchWrites);
    this.search = new SqliteSearch(db);
    this.ping_ = db.prepare<[], number>('SELECT 1').pluck();
    this.dataVersion_ = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  async findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): Promise<string[]> {
    return this.records.findIds(entity, kind, value, limit);
  }

  async getRecord(entity: Entity, id: string): Promise<StoredRecord | undefined> {
    return this.records.getRecord(entity, id);
  }

  /** Synchronous: from the serving index when it is ready, else by SQL in this turn's snapshot. */
  findRecords(entity: Entity, kind: IdentifierKind | 'id', value: string, limit: number): ServedRecord[] {
    if (!this.index) this.snapshot?.enter();
    return this.records.findRecords(entity, kind, value, limit);
  }

  async upsert(entity: Entity, records: RecordToStore[]): Promise<UpsertCounts> {
    this.snapshot?.end();
    return this.records.upsert(entity, records);
  }

  /** Reads this turn's snapshot, as lookups do (a server's searches then take no locks of their own). */
  async searchPeople(query: SearchQuery<PeopleFilters>): Promise<SearchPage> {
    this.snapshot?.enter();
    return this.search.people(query);
  }

  async searchCompanies(query: SearchQuery<CompanyFilters>): Promise<SearchPage> {
    this.snapshot?.enter();
    return this.search.companies(query);
  }

  async beginBulkLoad(entity: Entity): Promise<BulkLoad | undefined> {
    this.snapshot?.end();
    if (!this.bulk.begin(entity)) return undefined;
    this.index?.suspend(entity);
    return {
      upsert: async (records) => {
        this.snapshot?.end();
        const rows = records.map(bulkRow);
        if (!this.index) return this.bulk.write(entity, rows);
        return this.index.bulkWrite(entity, () => ({ rows, result: this.bulk.write(entity, rows) }));
      },
      finish: async () => {
        this.snapshot?.end();
        this.bulk.finish(entity);
        this.index?.build(entity, { identifiersOnly: true });
      },
    };
  }

  /** Finishes the bulk loads of processes that died half-way: their identifier indexes are built. */
  private finishAbandonedBulks(): void {
    for (const entity of this.bulk.abandoned()) this.bulk.finish(entity);
  }

  async delete(entity: Entity, ids: string[]): Promise<number> {
    this.snapshot?.end();
    return this.records.delete(entity, ids);
  }

  /** Pages by id rather than holding one cursor open: the connection stays free between yields. */
  async *exportBodies(entity: Entity): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const rows = this.records.bodies(entity, after, EXPORT_PAGE);
      for (const [, body] of rows) yield body;
      const last = rows.at(-1);
      if (rows.length < EXPORT_PAGE || last === undefined) return;
      after = last[0];
    }
  }

  async count(entity: Entity): Promise<number> {
    return this.records.count(entity);
  }

  async createKey(key: ApiKey): Promise<void> {
    this.keyWrite(() => this.keys.create(key));
  }

  findKeyByHash(hash: string): StoredKey | undefined {
    if (!this.index) this.snapshot?.enter();
    return this.keys.findByHash(hash);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    return this.keys.get(id);
  }

  async listKeys(): Promise<StoredKey[]> {
    return this.keys.list();
  }

  async updateKey(id: string, changes: KeyChanges): Promise<boolean> {
    return this.keyWrite(() => this.keys.update(id, changes));
  }

  async revokeKey(id: string, at: Date): Promise<boolean> {
    return this.keyWrite(() => this.keys.revoke(id, at));
  }

  async rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean> {
    return this.keyWrite(() => this.keys.rotate(id, hash, previousExpiresAt));
  }

  /** A key write, through the serving index's write protocol: every server sees it on its next request. */
  private keyWrite<T>(write: () => T): T {
    this.snapshot?.end();
    return this.index ? this.index.write('keys', [], () => ({ result: write() })) : write();
  }

  /**
   * Opens the serving index at `path`, bringing it in line with this store first (a rebuild, when it
   * is new or does not match). From now on every record write goes through it and lookups read it.
   * @returns what opening it took: `current`, `repaired`, `rebuilt`, or `busy` (another process rebuilds)
   */
  serveFromIndex(path: string): ReturnType<ServingIndex['reconcile']> {
    this.snapshot?.end();
    this.finishAbandonedBulks();
    const index = ServingIndex.open(path, this.records, KIND_CODES);
    this.index = index;
    this.records.index = index;
    this.keys.versionBy(() => index.keysVersion());
    return index.reconcile();
  }

  /**
   * For a server: checks every second that the index is current, repairing the writes of processes
   * that died half-way and rebuilding an index that no longer matches the store.
   */
  watchIndex(onError: (error: unknown) => void): void {
    if (!this.index || this.reconciler) return;
    this.reconciler = setInterval(() => {
      this.snapshot?.end();
      try {
        this.finishAbandonedBulks();
        this.index?.reconcile();
      } catch (error) {
        onError(error);
      }
    }, RECONCILE_EVERY_MS);
    this.reconciler.unref();
  }

  /** From now on, the lookups of one event-loop turn share one read transaction (TurnSnapshot). */
  snapshotPerTurn(): void {
    this.snapshot ??= new TurnSnapshot(this.db);
  }

  async quotaUsed(keyId: string, period: string): Promise<number> {
    return this.keys.quotaUsed(keyId, period);
  }

  async addQuotaUse(period: string, counts: Map<string, number>): Promise<void> {
    this.snapshot?.end();
    this.keys.addQuotaUse(period, counts);
  }

  async addUsage(rows: UsageRow[]): Promise<void> {
    this.snapshot?.end();
    this.keys.addUsage(rows);
  }

  async usage(filter: UsageFilter): Promise<UsageRow[]> {
    return this.keys.usage(filter);
  }

  async addAudit(entries: AuditEntry[]): Promise<void> {
    this.snapshot?.end();
    this.audit_.add(entries);
  }

  async foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean> {
    this.snapshot?.end();
    return this.journal.foldRun(segment, from, to, batch);
  }

  async journalOffset(segment: string): Promise<number> {
    return this.journal.offsetOf(segment);
  }

  async forgetJournal(segment: string): Promise<void> {
    this.snapshot?.end();
    this.journal.forgetSegment(segment);
  }

  async audit(filter: AuditFilter): Promise<AuditEntry[]> {
    return this.audit_.query(filter);
  }

  async pruneAudit(before: Date): Promise<number> {
    this.snapshot?.end();
    return this.audit_.prune(before);
  }

  async suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    this.snapshot?.end();
    return this.records.suppress(entity, recordIds, hashes);
  }

  async unsuppress(entity: Entity, hash: string): Promise<number> {
    this.snapshot?.end();
    return this.records.unsuppress(entity, hash);
  }

  async suppressedHashes(entity: Entity): Promise<Set<string>> {
    return this.records.suppressedHashes(entity);
  }

  async ping(): Promise<void> {
    this.ping_.get();
  }

  /** PRAGMA data_version: changes when another connection commits, so a server can drop caches. */
  dataVersion(): number {
    return this.dataVersion_.get()!;
  }

  async close(): Promise<void> {
    clearInterval(this.reconciler);
    this.snapshot?.end();
    await this.index?.close();
    if (!this.db.open) return;
    try {
      if (!this.db.readonly) this.db.pragma('optimize');
    } catch {
      // Statistics for the planner, best effort: on a full disk the store must still close.
    }
    this.db.close();
  }
}

/**
 * Opens (and on first use creates) a SQLite store.
 * @example const store = openSqliteStore('./data/enrich.db');
 */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const readonly = opts.readonly ?? false;
  if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly, fileMustExist: readonly });
  try {
    applyPragmas(db, readonly);
    registerSearchFunctions(db);
    if (readonly) checkSchema(db);
    else migrate(db);
    const store = new SqliteStore(db);
    const index = opts.servingIndex ?? true;
    if (index && !readonly && path !== ':memory:') store.serveFromIndex(servingIndexPath(path));
    if (opts.turnSnapshots) store.snapshotPerTurn();
    return store;
  } catch (error) {
    db.close();
    throw error;
  }
}
