// Records, identifiers, search rows and suppressions on SQLite, and the serving index that follows every write.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ServingIndex } from '../serving/serving-index.js';
import type { IndexSource, RecordChange, SourceRow } from '../serving/source.js';
import type {
  Entity,
  IdentifierKind,
  RecordToStore,
  ServedRecord,
  StoredRecord,
  UpsertCounts,
} from '../store.js';
import { KIND_CODES, TABLES } from './schema.js';
import type { SqliteSearchWrites } from './search-writes.js';

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
      .prepare<[string], [number, string]>(`DELETE FROM ${records} WHERE id = ? RETURNING rid, idents`)
      .raw(),
    row: db.prepare<[string], SourceRow>(`SELECT id, etag, body, idents FROM ${records} WHERE id = ?`),
    identsAfter: db
      .prepare<[number, string, number], [number, string, string]>(
        `SELECT kind, value, id FROM ${idents} WHERE (kind, value) > (?, ?) ORDER BY kind, value, id LIMIT ?`,
      )
      .raw(),
    rows: db.prepare<[string, number], SourceRow>(
      `SELECT id, etag, body, idents FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`,
    ),
    page: db
      .prepare<[string, number], [string, string]>(
        `SELECT id, body FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .raw(),
    count: db.prepare<[], number>(`SELECT count(*) FROM ${records}`).pluck(),
  };
}

function prepareShared(db: Database.Database) {
  return {
    addSuppression: db.prepare<[Entity, string, string]>(
      'INSERT OR IGNORE INTO suppressions (entity, hash, grp) VALUES (?, ?, ?)',
    ),
    removeSuppressions: db.prepare<[Entity, Entity, string]>(
      `DELETE FROM suppressions WHERE entity = ?
       AND grp IN (SELECT grp FROM suppressions WHERE entity = ? AND hash = ?)`,
    ),
    suppressed: db
      .prepare<[Entity], string>('SELECT DISTINCT hash FROM suppressions WHERE entity = ?')
      .pluck(),
    nextGeneration: db
      .prepare<[], number>('UPDATE serving_state SET generation = generation + 1 RETURNING generation')
      .pluck(),
    generation: db.prepare<[], number>('SELECT generation FROM serving_state').pluck(),
    storeId: db.prepare<[], string>('SELECT store_id FROM serving_state').pluck(),
  };
}

type EntityStatements = ReturnType<typeof prepareEntity>;

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

/** What a write transaction did: its result, the records it changed, and the store's new generation. */
interface Written<T> {
  result: T;
  changes: RecordChange[];
  generation: number;
}

/**
 * The record statements of one connection. Every write is one BEGIN IMMEDIATE transaction (a deferred
 * one that reads first fails at once when another process commits in between) that also bumps the
 * store's generation; with a serving index, it runs inside the index's write protocol.
 */
export class SqliteRecords implements IndexSource {
  private readonly entities: Record<Entity, EntityStatements>;
  private readonly shared: ReturnType<typeof prepareShared>;
  private readonly upsertTx: (entity: Entity, records: RecordToStore[]) => Written<UpsertCounts>;
  private readonly deleteTx: (entity: Entity, ids: string[]) => Written<number>;
  private readonly suppressTx: (entity: Entity, ids: string[], hashes: string[]) => Written<number>;
  index: ServingIndex | undefined;

  constructor(db: Database.Database, search: SqliteSearchWrites) {
    this.entities = { people: prepareEntity(db, 'people'), companies: prepareEntity(db, 'companies') };
    const shared = prepareShared(db);
    this.shared = shared;
    const upsert = (entity: Entity, records: RecordToStore[]) => {
      const s = this.entities[entity];
      const changes: RecordChange[] = [];
      // The read that finds a record's identifiers tells whether its id is new: counting costs nothing.
      const counts: UpsertCounts = { inserted: 0, updated: 0 };
      for (const { id, etag, body, identifiers, facts } of records) {
        const pairs = identifiers.map(({ kind, value }): IdentifierPair => [kindCode(kind), value]);
        const idents = JSON.stringify(pairs);
        const current = s.current.get(id);
        if (current === undefined) {
          counts.inserted++;
          const rid = Number(s.insert.run(id, etag, body, idents).lastInsertRowid);
          search.put(entity, rid, id, facts, body);
          changes.push({ id, row: { id, etag, body, idents } });
        } else {
          counts.updated++;
          if (s.update.run({ rid: current[0], etag, body, idents }).changes === 0) continue;
          search.put(entity, current[0], id, facts, body);
          changes.push({ id, row: { id, etag, body, idents } });
          if (current[1] === idents) continue;
          removeIdentifiers(s, id, current[1]);
        }
        for (const [kind, value] of pairs) s.insertIdent.run(kind, value, id);
      }
      return { changes, counts };
    };
    const remove = (entity: Entity, ids: string[]): RecordChange[] => {
      const s = this.entities[entity];
      const changes: RecordChange[] = [];
      for (const id of ids) {
        const removed = s.deleteRecord.get(id);
        if (removed === undefined) continue;
        removeIdentifiers(s, id, removed[1]);
        search.remove(entity, removed[0]);
        changes.push({ id });
      }
      return changes;
    };
    const written = <T>(result: T, changes: RecordChange[]): Written<T> => ({
      result,
      changes,
      generation: shared.nextGeneration.get()!,
    });
    const upsertTx = db.transaction((entity: Entity, records: RecordToStore[]) => {
      const { changes, counts } = upsert(entity, records);
      return written(counts, changes);
    });
    const deleteTx = db.transaction((entity: Entity, ids: string[]) => {
      const changes = remove(entity, ids);
      return written(changes.length, changes);
    });
    const suppressTx = db.transaction((entity: Entity, ids: string[], hashes: string[]) => {
      const changes = remove(entity, ids);
      const group = randomUUID();
      for (const hash of hashes) shared.addSuppression.run(entity, hash, group);
      return written(changes.length, changes);
    });
    this.upsertTx = (entity, records) => upsertTx.immediate(entity, records);
    this.deleteTx = (entity, ids) => deleteTx.immediate(entity, ids);
    this.suppressTx = (entity, ids, hashes) => suppressTx.immediate(entity, ids, hashes);
  }

  /** Runs a write transaction, through the serving index's write protocol when there is one. */
  private write<T>(entity: Entity, ids: readonly string[], tx: () => Written<T>): T {
    return this.index ? this.index.write(entity, ids, tx) : tx().result;
  }

  upsert(entity: Entity, records: RecordToStore[]): UpsertCounts {
    return this.write(
      entity,
      records.map((r) => r.id),
      () => this.upsertTx(entity, records),
    );
  }

  delete(entity: Entity, ids: string[]): number {
    return this.write(entity, ids, () => this.deleteTx(entity, ids));
  }

  suppress(entity: Entity, ids: string[], hashes: string[]): number {
    return this.write(entity, ids, () => this.suppressTx(entity, ids, hashes));
  }

  unsuppress(entity: Entity, hash: string): number {
    return this.shared.removeSuppressions.run(entity, entity, hash).changes;
  }

  suppressedHashes(entity: Entity): Set<string> {
    return new Set(this.shared.suppressed.all(entity));
  }

  /** From the serving index when it is ready, else by SQL. */
  findRecords(entity: Entity, kind: IdentifierKind | 'id', value: string, limit: number): ServedRecord[] {
    const indexed = this.index?.findRecords(entity, kind, value, limit);
    if (indexed) return indexed;
    const s = this.entities[entity];
    if (kind !== 'id') return s.serveByIdent.all(kindCode(kind), value, limit).map(toServed);
    const row = limit > 0 ? s.serveById.get(value) : undefined;
    return row ? [toServed(row)] : [];
  }

  findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): string[] {
    return this.entities[entity].findIds.all(kindCode(kind), value, limit);
  }

  getRecord(entity: Entity, id: string): StoredRecord | undefined {
    return this.entities[entity].get.get(id);
  }

  /** A page of [id, body] after `after`, in id order. */
  bodies(entity: Entity, after: string, limit: number): Array<[string, string]> {
    return this.entities[entity].page.all(after, limit);
  }

  count(entity: Entity): number {
    return this.entities[entity].count.get()!;
  }

  /** Bumps the store's generation inside the caller's write transaction; the new generation. */
  nextGeneration(): number {
    return this.shared.nextGeneration.get()!;
  }

  // IndexSource: how the serving index reads the store of record.
  storeId(): string {
    return this.shared.storeId.get()!;
  }

  generation(): number {
    return this.shared.generation.get()!;
  }

  rows(entity: Entity, ids: readonly string[]): SourceRow[] {
    const { row } = this.entities[entity];
    return ids.map((id) => row.get(id)).filter((r): r is SourceRow => r !== undefined);
  }

  page(entity: Entity, afterId: string, limit: number): SourceRow[] {
    return this.entities[entity].rows.all(afterId, limit);
  }

  identPage(
    entity: Entity,
    after: [number, string] | undefined,
    limit: number,
  ): Array<[number, string, string]> {
    const [kind, value] = after ?? [-1, ''];
    return this.entities[entity].identsAfter.all(kind, value, limit);
  }
}
