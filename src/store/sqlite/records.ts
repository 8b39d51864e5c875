// The records role on SQLite: lookups from the serving index when it is ready (else by SQL), writes through
// SqliteRecordWrites, bulk loads into an empty entity, exports by page.
import type Database from 'better-sqlite3';
import type { RemovalReason } from '../../changes/events.js';
import type { Entity, IdentifierKind } from '../../vocabulary/entities.js';
import type {
  BulkLoad,
  RecordStore,
  RecordToStore,
  ServedRecord,
  StoredRecord,
  UpsertCounts,
} from '../records.js';
import { BESIDE_A_LOAD } from '../serving/entity.js';
import type { ServingIndex } from '../serving/serving-index.js';
import { ENTITY_TABLES, IDENTIFIER_KIND_CODES, kindCode } from '../sql/tables.js';
import type { BulkRow, SqliteBulk } from './bulk.js';
import {
  type BulkIndexBuild,
  type EarlyIndexBuild,
  IDENTIFIERS_LOST,
  IDENTIFIERS_READY,
} from './index-build.js';
import type { SqliteRecordWrites } from './record-writes.js';
import type { TurnSnapshot } from './snapshot.js';

type ServedRow = [id: string, etag: string, body: Buffer];
const toServed = ([id, etag, body]: ServedRow): ServedRecord => ({ id, etag, body });

function prepareEntity(db: Database.Database, entity: Entity) {
  const { records, identifiers } = ENTITY_TABLES[entity];
  return {
    findIds: db
      .prepare<[number, string, number], string>(
        `SELECT id FROM ${identifiers} WHERE kind = ? AND value = ? ORDER BY id LIMIT ?`,
      )
      .pluck(),
    get: db.prepare<[string], StoredRecord>(`SELECT id, body, etag FROM ${records} WHERE id = ?`),
    // CAST … AS BLOB hands over the stored UTF-8 bytes as a Buffer: no decoding into a string, and
    // none of encoding it again on the way out.
    serveById: db
      .prepare<[string], ServedRow>(`SELECT id, etag, CAST(body AS BLOB) FROM ${records} WHERE id = ?`)
      .raw(),
    serveByIdentifier: db
      .prepare<[number, string, number], ServedRow>(
        `SELECT r.id, r.etag, CAST(r.body AS BLOB) FROM ${identifiers} i JOIN ${records} r ON r.id = i.id
         WHERE i.kind = ? AND i.value = ? ORDER BY i.id LIMIT ?`,
      )
      .raw(),
    page: db
      .prepare<[string, number], [string, string]>(
        `SELECT id, body FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .raw(),
    idPage: db
      .prepare<[string, number], string>(`SELECT id FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`)
      .pluck(),
    // In the table's own order, without the id index: an import wants the etags, not their order.
    etagPage: db
      .prepare<[number, number], [number, string]>(
        `SELECT rid, etag FROM ${records} WHERE rid > ? ORDER BY rid LIMIT ?`,
      )
      .raw(),
    count: db.prepare<[], number>(`SELECT count(*) FROM ${records}`).pluck(),
  };
}

/** Rows fetched per page by exportBodies: bounds memory without holding a read open across awaits. */
const EXPORT_PAGE = 1000;
/** Ids fetched per page by exportIds. */
const ID_PAGE = 10_000;

/** A record as a bulk load writes it: id, etag, body, its identifier list and search facts. */
const bulkRow = ({ id, etag, body, identifiers, facts }: RecordToStore): BulkRow => ({
  id,
  etag,
  body,
  idents: JSON.stringify(identifiers.map(({ kind, value }) => [IDENTIFIER_KIND_CODES[kind], value])),
  facts,
});

/**
 * Records on SQLite. Methods are async to honour the interface but run synchronously; lookups
 * (`findRecords`) answer at once. Reads without a serving index take this turn's snapshot; writes end it.
 */
export class SqliteRecords implements RecordStore {
  private readonly entities: Record<Entity, ReturnType<typeof prepareEntity>>;
  private index: ServingIndex | undefined;

  constructor(
    db: Database.Database,
    private readonly writes: SqliteRecordWrites,
    private readonly bulk: SqliteBulk,
    private readonly snapshot: TurnSnapshot,
  ) {
    this.entities = { people: prepareEntity(db, 'people'), companies: prepareEntity(db, 'companies') };
  }

  /** Builds a bulk load's part of the serving index on a thread of its own (set with the index). */
  private buildInThread: BulkIndexBuild | undefined;

  /** From now on lookups read the serving index, and every write goes through it. */
  serveFrom(index: ServingIndex, buildInThread: BulkIndexBuild): void {
    this.index = index;
    this.writes.index = index;
    this.buildInThread = buildInThread;
  }

  async findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): Promise<string[]> {
    return this.entities[entity].findIds.all(kindCode(kind), value, limit);
  }

  async getRecord(entity: Entity, id: string): Promise<StoredRecord | undefined> {
    return this.entities[entity].get.get(id);
  }

  /** Synchronous: from the serving index when it is ready, else by SQL in this turn's snapshot. */
  findRecords(entity: Entity, kind: IdentifierKind | 'id', value: string, limit: number): ServedRecord[] {
    if (this.index) {
      const indexed = this.index.findRecords(entity, kind, value, limit);
      if (indexed) return indexed;
    } else {
      this.snapshot.enter();
    }
    const statements = this.entities[entity];
    if (kind !== 'id') return statements.serveByIdentifier.all(kindCode(kind), value, limit).map(toServed);
    const row = limit > 0 ? statements.serveById.get(value) : undefined;
    return row ? [toServed(row)] : [];
  }

  async upsert(entity: Entity, records: RecordToStore[]): Promise<UpsertCounts> {
    this.snapshot.end();
    return this.writes.upsert(entity, records);
  }

  async delete(entity: Entity, ids: string[], reason: RemovalReason = 'deleted'): Promise<number> {
    this.snapshot.end();
    return this.writes.delete(entity, ids, reason);
  }

  async beginBulkLoad(entity: Entity): Promise<BulkLoad | undefined> {
    this.snapshot.end();
    if (!this.bulk.begin(entity)) return undefined;
    // The index's part is claimed, and the thread that builds it at the end started now: it loads while the
    // records are read.
    const claimed = this.index && { claim: this.index.suspend(entity), thread: this.buildInThread!() };
    return {
      // The serving index is built at the end, in id order: records put in it as they came, in file order,
      // were written twice over (each transaction copying the pages it touched) and left its pages half full.
      upsert: async (records) => {
        this.snapshot.end();
        return this.bulk.write(entity, records.map(bulkRow));
      },
      finish: async () => {
        this.snapshot.end();
        if (claimed === undefined) this.bulk.finish(entity);
        else await this.finishWithIndex(entity, claimed.claim, claimed.thread);
      },
    };
  }

  /**
   * Ends a bulk load and builds its part of the serving index on a thread of its own: it copies the records
   * while this thread builds SQLite's identifier table, then the identifiers while this one builds the search
   * indexes (the two took 3.3 and 2.2 s one after the other at 100,000 people).
   */
  private async finishWithIndex(entity: Entity, claim: string, early: EarlyIndexBuild): Promise<void> {
    const identifiers = new Int32Array(new SharedArrayBuffer(4));
    const say = (state: number) => {
      Atomics.store(identifiers, 0, state);
      Atomics.notify(identifiers, 0);
    };
    const index = this.index!;
    // This thread lets go of the index meanwhile, so that the build's remaps unmap what it has written.
    const built = await index.withoutHandle(async () => {
      const thread = early.build({ claims: [{ entity, claim }], pace: BESIDE_A_LOAD, identifiers }, true);
      try {
        this.bulk.finish(entity, () => say(IDENTIFIERS_READY));
      } catch (error) {
        say(IDENTIFIERS_LOST);
        thread.stop();
        await thread.done;
        throw error;
      }
      return (await thread.done).built;
    });
    // When the thread failed: here.
    if (!built.includes(entity)) index.build(entity);
  }

  /** Finishes the bulk loads of processes that died half-way: their identifier indexes are built. */
  /** Entities whose bulk load's process died before it finished. */
  abandonedBulks(): Entity[] {
    return this.bulk.abandoned();
  }

  finishAbandonedBulks(): void {
    for (const entity of this.bulk.abandoned()) this.bulk.finish(entity);
  }

  /** Pages by id rather than holding one cursor open: the connection stays free between yields. */
  async *exportBodies(entity: Entity): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const rows = this.entities[entity].page.all(after, EXPORT_PAGE);
      for (const [, body] of rows) yield body;
      const last = rows.at(-1);
      if (rows.length < EXPORT_PAGE || last === undefined) return;
      after = last[0];
    }
  }

  async *exportIds(entity: Entity): AsyncIterable<string[]> {
    for (let after = ''; ; ) {
      const ids = this.entities[entity].idPage.all(after, ID_PAGE);
      if (ids.length > 0) yield ids;
      if (ids.length < ID_PAGE) return;
      after = ids.at(-1)!;
    }
  }

  async *exportEtags(entity: Entity): AsyncIterable<string[]> {
    for (let after = 0; ; ) {
      const rows = this.entities[entity].etagPage.all(after, ID_PAGE);
      if (rows.length > 0) yield rows.map((row) => row[1]);
      if (rows.length < ID_PAGE) return;
      after = rows.at(-1)![0];
    }
  }

  async count(entity: Entity): Promise<number> {
    return this.entities[entity].count.get()!;
  }
}
