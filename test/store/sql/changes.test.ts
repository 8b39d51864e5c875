// The change log's shared statements (src/store/sql/changes.ts) as SQLite plans them: by the key, never a
// scan of the log, which holds millions of entries and is read on every wake of the webhook dispatcher.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { changeStatements } from '../../../src/store/sql/changes.js';
import { SQLITE } from '../../../src/store/sql/spelling.js';
import { MIGRATIONS, registerMigrationFunctions } from '../../../src/store/sqlite/schema.js';
import { registerSearchFunctions } from '../../../src/store/sqlite/search-writes.js';

const SQL = changeStatements(SQLITE);

describe('the change log statements on SQLite', () => {
  const db = new Database(':memory:');
  afterEach(() => db.exec('DELETE FROM change_log'));
  registerMigrationFunctions(db);
  registerSearchFunctions(db);
  for (const migration of MIGRATIONS) db.exec(migration);
  const plan = (sql: string) =>
    db
      .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all()
      .map((row) => row.detail);

  it('finds the bounds of the log by its key, not by reading it through', () => {
    const details = plan(SQL.bounds);
    expect(details.filter((detail) => detail.includes('change_log'))).toEqual([
      'SEARCH change_log',
      'SEARCH change_log',
    ]);
    expect(db.prepare(SQL.bounds).get()).toEqual({ first: 0, last: 0 });
    const append = db.prepare("INSERT INTO change_log (at, type, data) VALUES ('2026-11-29', 't', '{}')");
    for (let i = 0; i < 3; i++) append.run();
    db.exec('DELETE FROM change_log WHERE seq = 1');
    expect(db.prepare(SQL.bounds).get()).toEqual({ first: 2, last: 3 });
  });
});
