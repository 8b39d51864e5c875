// The SQLite backend of the Store: one file, WAL, every statement prepared once at open.

import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type {
  ApiKey,
  AuditEntry,
  AuditFilter,
  Entity,
  IdentifierKind,
  RecordToStore,
  ServedRecord,
  Store,
  StoredKey,
  StoredRecord,
  UsageFilter,
  UsageRow,
} from '../store.js';
import { SqliteAudit } from './audit.js';
import { SqliteKeys } from './keys.js';
import { applyPragmas, checkSchema, KIND_CODES, migrate, TABLES } from './schema.js';
import { TurnSnapshot } from './snapshot.js';
import { SqliteWriter, type WriterOp } from './writer.js';

export interface SqliteStoreOptions {
  /** Open an existing database without writing to it (no migration, no WAL switch). */
  readonly?: boolean;
  /**
   * Write audit entries, usage and quota counts from a worker thread with its own connection (for a
   * server: the serving thread then never waits on a commit or a checkpoint). Ignored for `:memory:`.
   */
  backgroundWrites?: boolean;
  /**
   * Lookups (records and keys) of one event-loop turn read one snapshot, in one transaction, so each
   * costs no file locking; a commit elsewhere is seen from the next turn (for a server).
   */
  turnSnapshots?: boolean;
}

/** Rows fetched per page by exportBodies: bounds memory without holding a read open across awaits. */
const EXPORT_PAGE = 1000;

type EntityStatements = ReturnType<typeof prepareEntity>;
type ServedRow = [id: string, etag: string, body: Buffer];

const toServed = ([id, etag, body]: ServedRow): ServedRecord => ({ id, etag, body });

function prepareEntity(db: Database.Database, entity: Entity) {
  const { records, idents } = TABLES[entity];
  return {
    findIds: db
      .prepare<[number, string, number], string>(
        `SELECT id FROM ${idents} WHERE kind = ? AND value = ? ORDER BY id LIMIT ?`,
      )
      .pluck(),
    get: db.prepare<[string], StoredRecord>(`SELECT id, body, etag FROM ${records} WHERE id = ?`),
    // CAST … AS BLOB hands over the stored UTF-8 bytes as a Buffer: no decoding into a string, and
    // none of encoding it again on the way out.
    serveById: db
      .prepare<[string], ServedRow>(`SELECT id, etag, CAST(body AS BLOB) FROM ${records} WHERE id = ?`)
      .raw(),
    serveByIdent: db
      .prepare<[number, string, number], ServedRow>(
        `SELECT r.id, r.etag, CAST(r.body AS BLOB) FROM ${idents} i JOIN ${records} r ON r.id = i.id
         WHERE i.kind = ? AND i.value = ? ORDER BY i.id LIMIT ?`,
      )
      .raw(),
    current: db.prepare<[string], [number, string]>(`SELECT rid, idents FROM ${records} WHERE id = ?`).raw(),
    insert: db.prepare<[string, string, string, string]>(
      `INSERT INTO ${records} (id, etag, body, idents) VALUES (?, ?, ?, ?)`,
    ),
    // An unchanged record is not rewritten: no page is dirtied when a file is imported again.
    update: db.prepare<[{ rid: number; etag: string; body: string; idents: string }]>(
      `UPDATE ${records} SET etag = @etag, body = @body, idents = @idents
       WHERE rid = @rid AND (etag IS NOT @etag OR body IS NOT @body OR idents IS NOT @idents)`,
    ),
    insertIdent: db.prepare<[number, string, string]>(
      `INSERT OR IGNORE INTO ${idents} (kind, value, id) VALUES (?, ?, ?)`,
    ),
    deleteIdent: db.prepare<[number, string, string]>(
      `DELETE FROM ${idents} WHERE kind = ? AND value = ? AND id = ?`,
    ),
    deleteRecord: db
      .prepare<[string], string>(`DELETE FROM ${records} WHERE id = ? RETURNING idents`)
      .pluck(),
    page: db
      .prepare<[string, number], [string, string]>(
        `SELECT id, body FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .raw(),
    count: db.prepare<[], number>(`SELECT count(*) FROM ${records}`).pluck(),
  };
}

function prepareSuppressions(db: Database.Database) {
  return {
    add: db.prepare<[Entity, string, string]>(
      'INSERT OR IGNORE INTO suppressions (entity, hash, grp) VALUES (?, ?, ?)',
    ),
    remove: db.prepare<[Entity, Entity, string]>(
      `DELETE FROM suppressions WHERE entity = ?
       AND grp IN (SELECT grp FROM suppressions WHERE entity = ? AND hash = ?)`,
    ),
    all: db.prepare<[Entity], string>('SELECT DISTINCT hash FROM suppressions WHERE entity = ?').pluck(),
  };
}

/** An identifier as the record's `idents` column lists it: [kind code, normalised value]. */
type IdentifierPair = [number, string];

function removeIdentifiers(s: EntityStatements, id: string, idents: string): void {
  for (const [kind, value] of JSON.parse(idents) as IdentifierPair[]) s.deleteIdent.run(kind, value, id);
}

function kindCode(kind: IdentifierKind): number {
  const code = KIND_CODES[kind];
  if (code === undefined) throw new Error(`unknown identifier kind: ${String(kind)}`);
  return code;
}

/** The Store on SQLite. Methods are async to honour the interface but run synchronously. */
export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly entities: Record<Entity, EntityStatements>;
  private readonly keys: SqliteKeys;
  private readonly audit_: SqliteAudit;
  private readonly suppressions: ReturnType<typeof prepareSuppressions>;
  private readonly suppressBatch: Database.Transaction<
    (entity: Entity, ids: string[], hashes: string[]) => number
  >;
  private readonly ping_: Database.Statement<[], number>;
  private readonly dataVersion_: Database.Statement<[], number>;
  // Writes run as BEGIN IMMEDIATE: a deferred transaction that reads first fails at once, busy_timeout
  // or not, when another process (a server counting quota while an import runs) commits in between.
  private readonly upsertBatch: Database.Transaction<(s: EntityStatements, records: RecordToStore[]) => void>;
  private readonly deleteBatch: Database.Transaction<(s: EntityStatements, ids: string[]) => number>;
  private writer: SqliteWriter | undefined;
  private snapshot: TurnSnapshot | undefined;

  constructor(private readonly db: Database.Database) {
    this.entities = { people: prepareEntity(db, 'people'), companies: prepareEntity(db, 'companies') };
    this.keys = new SqliteKeys(db);
    this.audit_ = new SqliteAudit(db);
    this.suppressions = prepareSuppressions(db);
    this.ping_ = db.prepare<[], number>('SELECT 1').pluck();
    this.dataVersion_ = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.upsertBatch = db.transaction((s: EntityStatements, records: RecordToStore[]) => {
      for (const { id, etag, body, identifiers } of records) {
        const pairs = identifiers.map(({ kind, value }): IdentifierPair => [kindCode(kind), value]);
        const idents = JSON.stringify(pairs);
        const current = s.current.get(id);
        if (current === undefined) {
          s.insert.run(id, etag, body, idents);
        } else {
          s.update.run({ rid: current[0], etag, body, idents });
          if (current[1] === idents) continue;
          removeIdentifiers(s, id, current[1]);
        }
        for (const [kind, value] of pairs) s.insertIdent.run(kind, value, id);
      }
    });
    this.deleteBatch = db.transaction((s: EntityStatements, ids: string[]) => {
      let deleted = 0;
      for (const id of ids) {
        const idents = s.deleteRecord.get(id);
        if (idents === undefined) continue;
        removeIdentifiers(s, id, idents);
        deleted++;
      }
      return deleted;
    });
    this.suppressBatch = db.transaction((entity: Entity, ids: string[], hashes: string[]) => {
      const deleted = this.deleteBatch(this.entities[entity], ids);
      const group = randomUUID();
      for (const hash of hashes) this.suppressions.add.run(entity, hash, group);
      return deleted;
    });
  }

  async findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): Promise<string[]> {
    return this.entities[entity].findIds.all(kindCode(kind), value, limit);
  }

  async getRecord(entity: Entity, id: string): Promise<StoredRecord | undefined> {
    return this.entities[entity].get.get(id);
  }

  async findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): Promise<ServedRecord[]> {
    const s = this.entities[entity];
    this.snapshot?.enter();
    if (kind !== 'id') return s.serveByIdent.all(kindCode(kind), value, limit).map(toServed);
    const row = limit > 0 ? s.serveById.get(value) : undefined;
    return row ? [toServed(row)] : [];
  }

  async upsert(entity: Entity, records: RecordToStore[]): Promise<void> {
    this.snapshot?.end();
    this.upsertBatch.immediate(this.entities[entity], records);
  }

  async delete(entity: Entity, ids: string[]): Promise<number> {
    this.snapshot?.end();
    return this.deleteBatch.immediate(this.entities[entity], ids);
  }

  /** Pages by id rather than holding one cursor open: the connection stays free between yields. */
  async *exportBodies(entity: Entity): AsyncIterable<string> {
    const { page } = this.entities[entity];
    let after = '';
    for (;;) {
      const rows = page.all(after, EXPORT_PAGE);
      for (const [, body] of rows) yield body;
      const last = rows.at(-1);
      if (rows.length < EXPORT_PAGE || last === undefined) return;
      after = last[0];
    }
  }

  async count(entity: Entity): Promise<number> {
    return this.entities[entity].count.get()!;
  }

  async createKey(key: ApiKey): Promise<void> {
    this.snapshot?.end();
    this.keys.create(key);
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    this.snapshot?.enter();
    return this.keys.findByHash(hash);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    return this.keys.get(id);
  }

  async listKeys(): Promise<StoredKey[]> {
    return this.keys.list();
  }

  async revokeKey(id: string, at: Date): Promise<boolean> {
    this.snapshot?.end();
    return this.keys.revoke(id, at);
  }

  async rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean> {
    this.snapshot?.end();
    return this.keys.rotate(id, hash, previousExpiresAt);
  }

  /** From now on, the lookups of one event-loop turn share one read transaction (TurnSnapshot). */
  snapshotPerTurn(): void {
    this.snapshot ??= new TurnSnapshot(this.db);
  }

  /**
   * From now on, audit entries, usage and quota counts are written by a worker thread on a connection
   * of its own. Should that thread fail, they are written on this connection again.
   */
  writeInBackground(): void {
    if (this.writer || this.db.memory || this.db.readonly) return;
    this.writer = new SqliteWriter(this.db.name);
  }

  /** `op` through the writer thread while it runs, else `inline` on this connection. */
  private async background(op: WriterOp, inline: () => unknown): Promise<unknown> {
    if (this.writer?.running) return this.writer.write(op);
    this.snapshot?.end();
    return inline();
  }

  async quotaUsed(keyId: string, period: string): Promise<number> {
    return this.keys.quotaUsed(keyId, period);
  }

  async addQuotaUse(period: string, counts: Map<string, number>): Promise<void> {
    await this.background({ op: 'quota', period, counts }, () => this.keys.addQuotaUse(period, counts));
  }

  async addUsage(rows: UsageRow[]): Promise<void> {
    await this.background({ op: 'usage', rows }, () => this.keys.addUsage(rows));
  }

  async usage(filter: UsageFilter): Promise<UsageRow[]> {
    return this.keys.usage(filter);
  }

  async addAudit(entries: AuditEntry[]): Promise<void> {
    await this.background({ op: 'audit', entries }, () => this.audit_.add(entries));
  }

  async audit(filter: AuditFilter): Promise<AuditEntry[]> {
    return this.audit_.query(filter);
  }

  async pruneAudit(before: Date): Promise<number> {
    return (await this.background({ op: 'prune', before }, () => this.audit_.prune(before))) as number;
  }

  async suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    this.snapshot?.end();
    return this.suppressBatch.immediate(entity, recordIds, hashes);
  }

  async unsuppress(entity: Entity, hash: string): Promise<number> {
    this.snapshot?.end();
    return this.suppressions.remove.run(entity, entity, hash).changes;
  }

  async suppressedHashes(entity: Entity): Promise<Set<string>> {
    return new Set(this.suppressions.all.all(entity));
  }

  async ping(): Promise<void> {
    this.ping_.get();
  }

  /** PRAGMA data_version: changes when another connection commits, so a server can drop caches. */
  dataVersion(): number {
    return this.dataVersion_.get()!;
  }

  async close(): Promise<void> {
    await this.writer?.close();
    this.snapshot?.end();
    if (!this.db.open) return;
    if (!this.db.readonly) this.db.pragma('optimize');
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
    if (readonly) checkSchema(db);
    else migrate(db);
    const store = new SqliteStore(db);
    if (opts.backgroundWrites) store.writeInBackground();
    if (opts.turnSnapshots) store.snapshotPerTurn();
    return store;
  } catch (error) {
    db.close();
    throw error;
  }
}
