// A bulk load into an empty entity on SQLite: records and search rows only, many per statement, then the
// identifier and search indexes built once, sorted, from what the records carry.
import type Database from 'better-sqlite3';
import { classifyChange } from '../../changes/classify.js';
import type { Entity } from '../../vocabulary/entities.js';
import { countChange, noneCounted, type UpsertCounts } from '../records.js';
import type { SearchFacts } from '../search-facts.js';
import type { SourceRow } from '../serving/source.js';
import { isAlive, thisWriter, type WriterId } from '../serving/writers.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import type { SqliteChanges } from './changes.js';
import type { SqliteSearchWrites } from './search-writes.js';

/** A record as a bulk load writes it, with its search facts when the parse workers worked them out. */
export interface BulkRow extends SourceRow {
  facts: SearchFacts | undefined;
}

/** Records per INSERT statement. */
const ROWS = 50;
/** Threads SQLite's sorter may use while the identifier index is built. */
const SORT_THREADS = 2;
/**
 * The build's page cache, negative in KiB: 32 MiB. SQLite's sorter holds up to this much per thread (the
 * connection's and each of SORT_THREADS): at 128 MiB the identifier index of 1,000,000 people took the
 * importer from 310 MB to 640 MB resident.
 */
const FINISH_CACHE_KIB = -32_768;
/** WAL pages between checkpoints during a bulk load (of 16 KiB: 256 MiB). */
const BULK_CHECKPOINT_PAGES = 16_384;

function prepareEntity(db: Database.Database, entity: Entity) {
  const { records, identifiers } = ENTITY_TABLES[entity];
  // RETURNING names each new row's rid, for its search row; a row whose id is on file already (a repeat)
  // is left for `stored` and `update`, which classify and log it as any upsert does.
  const insert = (rows: number) =>
    db
      .prepare<unknown[], [number, string]>(
        `INSERT INTO ${records} (id, etag, body, idents) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}
         ON CONFLICT (id) DO NOTHING RETURNING rid, id`,
      )
      .raw();
  return {
    many: insert(ROWS),
    one: insert(1),
    stored: db
      .prepare<[string], [number, string, string, string]>(
        `SELECT rid, etag, body, idents FROM ${records} WHERE id = ?`,
      )
      .raw(),
    update: db.prepare<[string, string, string, number]>(
      `UPDATE ${records} SET etag = ?, body = ?, idents = ? WHERE rid = ?`,
    ),
    empty: db.prepare<[], number>(`SELECT NOT EXISTS (SELECT 1 FROM ${records})`).pluck(),
    // The rowid B-tree's last entry: one page read, however many records.
    lastRid: db.prepare<[], number>(`SELECT coalesce(max(rid), 0) FROM ${records}`).pluck(),
    clearIdentifiers: db.prepare(`DELETE FROM ${identifiers}`),
    // One sorted pass: the index's B-tree is filled in order instead of at random places.
    buildIdentifiers: db.prepare(
      `INSERT OR IGNORE INTO ${identifiers} (kind, value, id)
       SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), r.id
       FROM ${records} r, json_each(r.idents) j ORDER BY 1, 2, 3`,
    ),
  };
}

/**
 * The bulk-load statements of one connection. A bulk load is marked in `bulk_loads` (with its process)
 * in the transaction of its first write; its batches are each one transaction (a crash keeps whole
 * batches); `finish` builds the identifier index, then the search indexes and removes the mark. A mark whose
 * process is gone is finished by the next process to open the store.
 */
export class SqliteBulk {
  private readonly entities: Record<Entity, ReturnType<typeof prepareEntity>>;
  private readonly marks: {
    add: Database.Statement<[Entity, string]>;
    remove: Database.Statement<[Entity]>;
    all: Database.Statement<[], { entity: Entity; writer: string }>;
  };
  private readonly beginTx: (entity: Entity) => boolean;
  private readonly writeTx: (entity: Entity, rows: BulkRow[]) => UpsertCounts;
  private readonly identifiersTx: (entity: Entity) => number;
  private readonly searchTx: (entity: Entity) => void;

  /** `nextGeneration` bumps the store's generation (SqliteRecordWrites'), in the caller's transaction. */
  constructor(
    private readonly db: Database.Database,
    nextGeneration: () => number,
    search: SqliteSearchWrites,
    private readonly log: SqliteChanges,
  ) {
    this.entities = { people: prepareEntity(db, 'people'), companies: prepareEntity(db, 'companies') };
    const marks = {
      add: db.prepare<[Entity, string]>('INSERT INTO bulk_loads (entity, writer) VALUES (?, ?)'),
      remove: db.prepare<[Entity]>('DELETE FROM bulk_loads WHERE entity = ?'),
      all: db.prepare<[], { entity: Entity; writer: string }>('SELECT entity, writer FROM bulk_loads'),
    };
    this.marks = marks;
    const begin = db.transaction((entity: Entity) => {
      if (this.entities[entity].empty.get() !== 1) return false;
      if (marks.all.all().some((mark) => mark.entity === entity)) return false;
      marks.add.run(entity, JSON.stringify(thisWriter()));
      search.beginBulk(entity);
      return true;
    });
    const write = db.transaction((entity: Entity, rows: BulkRow[]) => {
      const statements = this.entities[entity];
      const at = new Date().toISOString();
      const values = (from: number, to: number) =>
        rows.slice(from, to).flatMap(({ id, etag, body, idents }) => [id, etag, body, idents]);
      // A new row takes the rowid after the largest (the table has no AUTOINCREMENT), and only this
      // transaction writes: the rowids after `before` are the records it inserted, in the batch's order.
      const before = statements.lastRid.get()!;
      const rids = new Map<string, number>();
      const placed = ([rid, id]: [number, string]) => rids.set(id, rid);
      let i = 0;
      for (; i + ROWS <= rows.length; i += ROWS) statements.many.all(values(i, i + ROWS)).forEach(placed);
      for (; i < rows.length; i++) statements.one.all(values(i, i + 1)).forEach(placed);
      // Their created events in one statement, from the rows just written: no JSON handled here.
      const counts = noneCounted();
      counts.inserted = log.appendCreated(entity, before, at);
      // The search index waits for finish. A row not inserted repeats an id (of this batch or an earlier
      // one): it replaces what is stored in turn, classified and logged as an upsert would.
      for (const row of rows) {
        const rid = rids.get(row.id);
        if (rid !== undefined) {
          rids.delete(row.id);
          search.put(entity, rid, row.id, row.facts, row.body, false);
          continue;
        }
        const [storedRid, etag, body, idents] = statements.stored.get(row.id)!;
        const change = classifyChange({ entity, id: row.id, before: body, after: row.body });
        countChange(counts, change.change);
        log.append(change.events, at);
        if (etag === row.etag && body === row.body && idents === row.idents) continue;
        statements.update.run(row.etag, row.body, row.idents, storedRid);
        search.put(entity, storedRid, row.id, row.facts, row.body, false);
      }
      nextGeneration();
      return counts;
    });
    // The records and their identifiers are what the serving index copies: the generation moves with them.
    const identifiers = db.transaction((entity: Entity) => {
      const statements = this.entities[entity];
      statements.clearIdentifiers.run();
      statements.buildIdentifiers.run();
      return nextGeneration();
    });
    const searchIndexes = db.transaction((entity: Entity) => {
      search.finishBulk(entity);
      marks.remove.run(entity);
    });
    this.beginTx = (entity) => begin.immediate(entity);
    this.writeTx = (entity, rows) => write.immediate(entity, rows);
    this.identifiersTx = (entity) => identifiers.immediate(entity);
    this.searchTx = (entity) => searchIndexes.immediate(entity);
  }

  /** Starts a bulk load: true when the entity is empty and no other bulk load of it is under way. */
  begin(entity: Entity): boolean {
    const begun = this.beginTx(entity);
    // Checkpoints (a copy of the WAL into the file, and an fsync each) every 256 MiB rather than every
    // 16 MiB: their fsyncs took more than half the time of writing the records.
    if (begun) this.db.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
    return begun;
  }

  /** One batch of rows, upserted by id, in one transaction; how many were new and how many replaced one. */
  write(entity: Entity, rows: BulkRow[]): UpsertCounts {
    try {
      return this.writeTx(entity, rows);
    } finally {
      this.log.committed();
    }
  }

  /**
   * Builds the identifier index from the records' lists, then the search indexes, and ends the bulk load:
   * two transactions, `identifiersBuilt` called between them (a serving index built meanwhile may read the
   * identifiers from then on). The mark goes with the second: a process that dies between them leaves the
   * bulk load to be finished again, whole, by the next.
   */
  finish(entity: Entity, identifiersBuilt: () => void = () => {}): void {
    // The sort spills to a temporary file rather than holding every identifier of the entity in memory,
    // sorts on a second thread (the parse workers are done by now), and has a bigger cache for the build.
    const cache = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma('temp_store = FILE');
    this.db.pragma(`threads = ${SORT_THREADS}`);
    this.db.pragma(`cache_size = ${FINISH_CACHE_KIB}`);
    try {
      this.identifiersTx(entity);
      identifiersBuilt();
      this.searchTx(entity);
    } finally {
      this.db.pragma(`cache_size = ${cache}`);
      this.db.pragma('threads = 0');
      this.db.pragma('temp_store = MEMORY');
      this.db.pragma('wal_autocheckpoint = 1000');
    }
    // The WAL the load left (up to BULK_CHECKPOINT_PAGES) is copied into the file now, while the serving
    // index is built beside it, rather than by the next commit or as the store closes, with nothing beside.
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Entities whose bulk load's process is gone: they need finishing. */
  abandoned(): Entity[] {
    return this.marks.all
      .all()
      .filter((mark) => !isAlive(JSON.parse(mark.writer) as WriterId))
      .map((mark) => mark.entity);
  }
}
