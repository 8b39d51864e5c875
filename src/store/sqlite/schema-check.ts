// What a store file may hold, object by object: exactly what this version's migrations make for its schema
// version — tables and their columns, indexes, triggers, views — so that a backup carrying anything else (a
// trigger that un-revokes keys, one that deletes audit rows) is refused before it is restored.
import Database from 'better-sqlite3';
import type { Entity } from '../../vocabulary/entities.js';
import { MIGRATIONS, registerMigrationFunctions } from './schema.js';
import { searchIndexNames } from './search-schema.js';
import { registerSearchFunctions } from './search-writes.js';

/** A schema: each object's SQL (null for SQLite's automatic indexes) by `type name`. */
export type Schema = ReadonlyMap<string, string | null>;

/**
 * SQLite's own statistics tables: `PRAGMA optimize` (run as a store closes) makes them, and they only
 * guide the query planner.
 */
const STATISTICS = /^table sqlite_stat\d$/;

/** SQL compared as SQLite keeps it, but for runs of white space (a migration's indentation). */
const normalised = (sql: string | null) => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());

/** The objects of a database's schema. */
export function schemaOf(db: Database.Database): Schema {
  const rows = db
    .prepare<[], { type: string; name: string; sql: string | null }>(
      'SELECT type, name, sql FROM sqlite_schema',
    )
    .all();
  return new Map(rows.map(({ type, name, sql }) => [`${type} ${name}`, normalised(sql)]));
}

const expected = new Map<number, Schema>();

/** The schema of a store at `version`: migrations 1 to `version`, applied to an empty database. */
export function schemaAt(version: number): Schema {
  let schema = expected.get(version);
  if (schema === undefined) {
    const db = new Database(':memory:');
    try {
      registerMigrationFunctions(db);
      registerSearchFunctions(db);
      for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
      schema = schemaOf(db);
    } finally {
      db.close();
    }
    expected.set(version, schema);
  }
  return schema;
}

/**
 * How `actual` departs from the schema of `version`, one phrase per object: an object the schema does
 * not define, one it defines differently, one missing. The search indexes of an entity whose bulk load
 * the file caught half-way (`loading`) may be missing: the load drops them, and whoever opens the file
 * finishes it.
 * @example schemaDifferences(schemaOf(db), 12, []) // ['an extra trigger keys_unrevoke']
 */
export function schemaDifferences(actual: Schema, version: number, loading: readonly Entity[]): string[] {
  const schema = schemaAt(version);
  const droppable = new Set(loading.flatMap((entity) => searchIndexNames(entity).map((n) => `index ${n}`)));
  const differences: string[] = [];
  for (const [object, sql] of actual) {
    if (STATISTICS.test(object)) continue;
    if (!schema.has(object)) differences.push(`an extra ${object}`);
    else if (schema.get(object) !== sql) differences.push(`${object} defined differently`);
  }
  for (const object of schema.keys()) {
    if (!actual.has(object) && !droppable.has(object)) differences.push(`no ${object}`);
  }
  return differences;
}
