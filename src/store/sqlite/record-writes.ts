// Record writes on SQLite: each one transaction writing records, their identifiers and search rows and bumping
// the store's generation, through the serving index's write protocol; and what that index reads back.
import type Database from 'better-sqlite3';
import { classifyChange } from '../../changes/classify.js';
import type { ClassifiedEvent, RemovalReason } from '../../changes/events.js';
import type { Entity } from '../../vocabulary/entities.js';
import { countChange, noneCounted, type RecordToStore, type UpsertCounts } from '../records.js';
import type { ServingIndex } from '../serving/serving-index.js';
import type { IndexSource, RecordChange, SourceRow } from '../serving/source.js';
import { ENTITY_TABLES, kindCode } from '../sql/tables.js';
import type { SqliteChanges } from './changes.js';
import { SqliteIndexSource } from './index-source.js';
import type { SqliteSearchWrites } from './search-writes.js';

function prepareEntity(db: Database.Database, entity: Entity) {
  const { records, identifiers } = ENTITY_TABLES[entity];
  return {
    // Whether a record holds these exact bytes, compared inside SQLite: an unchanged record's body is not
    // copied out, nor written back.
    same: db
      .prepare<[string, string], [string, string, number]>(
        `SELECT idents, etag, body IS ? FROM ${records} WHERE id = ?`,
      )
      .raw(),
    current: db
      .prepare<[string], [number, string, string, string]>(
        `SELECT rid, idents, etag, body FROM ${records} WHERE id = ?`,
      )
      .raw(),
    insert: db.prepare<[string, string, string, string]>(
      `INSERT INTO ${records} (id, etag, body, idents) VALUES (?, ?, ?, ?)`,
    ),
    // An unchanged record is not rewritten: no page is dirtied when a file is imported again.
    update: db.prepare<[{ rid: number; etag: string; body: string; idents: string }]>(
      `UPDATE ${records} SET etag = @etag, body = @body, idents = @idents
       WHERE rid = @rid AND (etag IS NOT @etag OR body IS NOT @body OR idents IS NOT @idents)`,
    ),
    insertIdentifier: db.prepare<[number, string, string]>(
      `INSERT OR IGNORE INTO ${identifiers} (kind, value, id) VALUES (?, ?, ?)`,
    ),
    deleteIdentifier: db.prepare<[number, string, string]>(
      `DELETE FROM ${identifiers} WHERE kind = ? AND value = ? AND id = ?`,
    ),
    deleteRecord: db
      .prepare<[string], [number, string]>(`DELETE FROM ${records} WHERE id = ? RETURNING rid, idents`)
      .raw(),
  };
}

function prepareServingState(db: Database.Database) {
  return {
    nextGeneration: db
      .prepare<[], number>('UPDATE serving_state SET generation = generation + 1 RETURNING generation')
      .pluck(),
  };
}

type EntityStatements = ReturnType<typeof prepareEntity>;

/** An identifier as the record's `idents` column lists it: [kind code, normalised value]. */
export type IdentifierPair = [number, string];

/** The events of a record's removal (classified without its body, which a removal does not read). */
const removalEvents = (entity: Entity, id: string, reason: RemovalReason) =>
  classifyChange({ entity, id, before: '', after: null, reason }).events;

function removeIdentifiers(statements: EntityStatements, id: string, idents: string): void {
  for (const [kind, value] of JSON.parse(idents) as IdentifierPair[])
    statements.deleteIdentifier.run(kind, value, id);
}

/** The pairs of `from` that `to` does not hold. */
export function pairsNotIn(from: readonly IdentifierPair[], to: readonly IdentifierPair[]): IdentifierPair[] {
  const held = new Set(to.map(([kind, value]) => `${kind} ${value}`));
  return from.filter(([kind, value]) => !held.has(`${kind} ${value}`));
}

/**
 * Moves a record's identifier rows from the pairs it held to `pairs`: only those that changed (a job change
 * changes a work e-mail and its hashes, not a LinkedIn URL).
 */
function replaceIdentifiers(statements: EntityStatements, id: string, held: string, pairs: IdentifierPair[]) {
  const before = JSON.parse(held) as IdentifierPair[];
  for (const [kind, value] of pairsNotIn(before, pairs)) statements.deleteIdentifier.run(kind, value, id);
  for (const [kind, value] of pairsNotIn(pairs, before)) statements.insertIdentifier.run(kind, value, id);
}

/**
 * A transaction of this many records or more (an import's, a refresh's) raises its connection's page cache
 * to LARGE_WRITE_CACHE_KIB, for as long as the connection is open.
 */
const LARGE_WRITE = 1000;
/**
 * Negative, in KiB: 64 MiB. A refresh's transaction of 1,000 changed people among 100,000 dirtied 3,770
 * pages of 16 KiB (most of their identifiers' index, the records, the search rows): in the 16 MiB a
 * connection has otherwise, SQLite wrote them to the WAL before the commit and read them back. A refresh of
 * 20,000 changed people wrote 6.0 GB; with this cache and larger transactions (src/ingest/import.ts), 2.4 GB.
 */
const LARGE_WRITE_CACHE_KIB = -65_536;

/**
 * An event's time: when its transaction ends, its work done. Events are appended last, so that those of a
 * transaction of thousands of records are not stamped a second or more before anyone can read them.
 */
const commitTime = () => new Date().toISOString();

/** What a write transaction did: its result, the records it changed, and the store's new generation. */
interface Written<T> {
  result: T;
  changes: RecordChange[];
  generation: number;
}

/**
 * The record writes of one connection. Every write is one BEGIN IMMEDIATE transaction (a deferred one that
 * reads first fails at once when another process commits in between) that also bumps the store's
 * generation; with a serving index, it runs inside the index's write protocol. `written` closes every one
 * of them: what must be written with the records, in their transaction, is written there.
 */
export class SqliteRecordWrites implements IndexSource {
  private readonly entities: Record<Entity, EntityStatements>;
  private readonly state: ReturnType<typeof prepareServingState>;
  /** What the serving index reads of this connection. */
  private readonly reads: SqliteIndexSource;
  private readonly upsertTx: (entity: Entity, records: RecordToStore[]) => Written<UpsertCounts>;
  private readonly deleteTx: (
    entity: Entity,
    ids: string[],
    reason: RemovalReason,
    alongside: () => void,
  ) => Written<number>;
  index: ServingIndex | undefined;
  /** The connection's page cache was raised for large transactions. */
  private largeWrites = false;

  constructor(
    private readonly db: Database.Database,
    search: SqliteSearchWrites,
    private readonly log: SqliteChanges,
  ) {
    this.entities = { people: prepareEntity(db, 'people'), companies: prepareEntity(db, 'companies') };
    this.reads = new SqliteIndexSource(db);
    const state = prepareServingState(db);
    this.state = state;
    const upsert = (entity: Entity, records: RecordToStore[]) => {
      const statements = this.entities[entity];
      const changes: RecordChange[] = [];
      const events: ClassifiedEvent[] = [];
      // The read that finds a record's identifiers tells whether its id is new and what it held: its
      // change is classified against it, and an unchanged record is neither rewritten nor logged.
      const counts = noneCounted();
      for (const { id, etag, body, identifiers, facts } of records) {
        const pairs = identifiers.map(({ kind, value }): IdentifierPair => [kindCode(kind), value]);
        const idents = JSON.stringify(pairs);
        // Most of a refresh is unchanged: the same bytes, etag and identifiers are neither read nor written.
        const same = statements.same.get(body, id);
        if (same !== undefined && same[2] === 1 && same[1] === etag && same[0] === idents) {
          countChange(counts, 'unchanged');
          continue;
        }
        const current = same === undefined ? undefined : statements.current.get(id);
        const change = classifyChange({ entity, id, before: current?.[3], after: body });
        countChange(counts, change.change);
        events.push(...change.events);
        if (current === undefined) {
          const rid = Number(statements.insert.run(id, etag, body, idents).lastInsertRowid);
          search.put(entity, rid, id, facts, body);
          changes.push({ id, row: { id, etag, body, idents } });
        } else {
          // Bytes are kept exactly as imported: a record that reads the same but is spelt otherwise
          // (or whose identifiers are derived anew) is rewritten, with no event.
          if (statements.update.run({ rid: current[0], etag, body, idents }).changes === 0) continue;
          search.replace(entity, current[0], id, facts, body, current[3]);
          changes.push({ id, row: { id, etag, body, idents } });
          if (current[1] !== idents) replaceIdentifiers(statements, id, current[1], pairs);
          continue;
        }
        for (const [kind, value] of pairs) statements.insertIdentifier.run(kind, value, id);
      }
      log.append(events, commitTime());
      return { changes, counts };
    };
    const remove = (entity: Entity, ids: string[], reason: RemovalReason): RecordChange[] => {
      const statements = this.entities[entity];
      const changes: RecordChange[] = [];
      const events: ClassifiedEvent[] = [];
      for (const id of ids) {
        const removed = statements.deleteRecord.get(id);
        if (removed === undefined) continue;
        removeIdentifiers(statements, id, removed[1]);
        search.remove(entity, removed[0]);
        changes.push({ id });
        events.push(...removalEvents(entity, id, reason));
      }
      log.append(events, commitTime());
      return changes;
    };
    const written = <T>(result: T, changes: RecordChange[]): Written<T> => ({
      result,
      changes,
      generation: state.nextGeneration.get()!,
    });
    const upsertTx = db.transaction((entity: Entity, records: RecordToStore[]) => {
      const { changes, counts } = upsert(entity, records);
      return written(counts, changes);
    });
    const deleteTx = db.transaction(
      (entity: Entity, ids: string[], reason: RemovalReason, alongside: () => void) => {
        const changes = remove(entity, ids, reason);
        alongside();
        return written(changes.length, changes);
      },
    );
    this.upsertTx = (entity, records) => upsertTx.immediate(entity, records);
    this.deleteTx = (entity, ids, reason, alongside) => deleteTx.immediate(entity, ids, reason, alongside);
  }

  /**
   * Runs a write transaction, through the serving index's write protocol when there is one; then wakes
   * the change log's watchers.
   */
  private write<T>(entity: Entity, ids: readonly string[], tx: () => Written<T>): T {
    try {
      return this.index ? this.index.write(entity, ids, tx) : tx().result;
    } finally {
      this.log.committed();
    }
  }

  upsert(entity: Entity, records: RecordToStore[]): UpsertCounts {
    if (records.length >= LARGE_WRITE && !this.largeWrites) {
      this.db.pragma(`cache_size = ${LARGE_WRITE_CACHE_KIB}`);
      this.largeWrites = true;
    }
    return this.write(
      entity,
      records.map((r) => r.id),
      () => this.upsertTx(entity, records),
    );
  }

  /**
   * Deletes records, logging each removal with `reason`; `alongside` writes what goes with them in the
   * same transaction (a suppression's hashes).
   */
  delete(entity: Entity, ids: string[], reason: RemovalReason, alongside: () => void = () => {}): number {
    return this.write(entity, ids, () => this.deleteTx(entity, ids, reason, alongside));
  }

  /** Bumps the store's generation inside the caller's write transaction; the new generation. */
  nextGeneration(): number {
    return this.state.nextGeneration.get()!;
  }

  // IndexSource: how the serving index reads the store of record.
  storeId(): string {
    return this.reads.storeId();
  }

  generation(): number {
    return this.reads.generation();
  }

  rows(entity: Entity, ids: readonly string[]): SourceRow[] {
    return this.reads.rows(entity, ids);
  }

  page(entity: Entity, afterId: string, limit: number): SourceRow[] {
    return this.reads.page(entity, afterId, limit);
  }

  identPage(entity: Entity, kind: number, after: string | undefined, limit: number): Array<[string, string]> {
    return this.reads.identPage(entity, kind, after, limit);
  }
}
