// What the serving index reads of a SQLite store: its identity and generation, and records and identifiers in
// order, to repair and to build. A connection's writes read through it, and so does a build thread alone.
import type Database from 'better-sqlite3';
import { ENTITIES, type Entity } from '../../vocabulary/entities.js';
import type { IndexSource, SourceRow } from '../serving/source.js';
import { ENTITY_TABLES } from '../sql/tables.js';

function prepareEntity(db: Database.Database, entity: Entity) {
  const { records, identifiers } = ENTITY_TABLES[entity];
  return {
    row: db.prepare<[string], SourceRow>(`SELECT id, etag, body, idents FROM ${records} WHERE id = ?`),
    rowsAfter: db.prepare<[string, number], SourceRow>(
      `SELECT id, etag, body, idents FROM ${records} WHERE id > ? ORDER BY id LIMIT ?`,
    ),
    identifiersAfter: db
      .prepare<[number, string, number], [string, string]>(
        `SELECT value, id FROM ${identifiers} WHERE kind = ? AND value > ? ORDER BY value, id LIMIT ?`,
      )
      .raw(),
    identifiersFrom: db
      .prepare<[number, number], [string, string]>(
        `SELECT value, id FROM ${identifiers} WHERE kind = ? ORDER BY value, id LIMIT ?`,
      )
      .raw(),
  };
}

export class SqliteIndexSource implements IndexSource {
  private readonly entities: Record<Entity, ReturnType<typeof prepareEntity>>;
  private readonly state: {
    generation: Database.Statement<[], number>;
    storeId: Database.Statement<[], string>;
  };

  constructor(db: Database.Database) {
    this.entities = Object.fromEntries(
      ENTITIES.map((entity) => [entity, prepareEntity(db, entity)]),
    ) as Record<Entity, ReturnType<typeof prepareEntity>>;
    this.state = {
      generation: db.prepare<[], number>('SELECT generation FROM serving_state').pluck(),
      storeId: db.prepare<[], string>('SELECT store_id FROM serving_state').pluck(),
    };
  }

  storeId(): string {
    return this.state.storeId.get()!;
  }

  generation(): number {
    return this.state.generation.get()!;
  }

  rows(entity: Entity, ids: readonly string[]): SourceRow[] {
    const { row } = this.entities[entity];
    return ids.map((id) => row.get(id)).filter((r): r is SourceRow => r !== undefined);
  }

  page(entity: Entity, afterId: string, limit: number): SourceRow[] {
    return this.entities[entity].rowsAfter.all(afterId, limit);
  }

  identPage(entity: Entity, kind: number, after: string | undefined, limit: number): Array<[string, string]> {
    const statements = this.entities[entity];
    return after === undefined
      ? statements.identifiersFrom.all(kind, limit)
      : statements.identifiersAfter.all(kind, after, limit);
  }
}
