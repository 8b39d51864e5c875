// A store file's schema against the one its version defines: exactly equal, or every difference named.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, registerMigrationFunctions, SCHEMA_VERSION } from '../../../src/store/sqlite/schema.js';
import { schemaDifferences, schemaOf } from '../../../src/store/sqlite/schema-check.js';
import { registerSearchFunctions } from '../../../src/store/sqlite/search-writes.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A store file as the service makes it (closed, so `PRAGMA optimize` has run), open for tampering. */
async function storeFile(): Promise<Database.Database> {
  const path = join(dir, `store-${files++}.db`);
  const store = openSqliteStore(path, { servingIndex: false });
  await store.close();
  return new Database(path);
}

const differences = (db: Database.Database, loading: Array<'people' | 'companies'> = []) =>
  schemaDifferences(schemaOf(db), db.pragma('user_version', { simple: true }) as number, loading);

describe('the schema of a store file', () => {
  it('of a store the service made is exactly its version’s', async () => {
    const db = await storeFile();
    expect(differences(db)).toEqual([]);
    db.close();
  });

  it('of a store of each earlier version, as it is and once the service has migrated it, is exactly its version’s', async () => {
    for (let version = 1; version < SCHEMA_VERSION; version++) {
      const path = join(dir, `version-${version}.db`);
      const old = new Database(path);
      registerMigrationFunctions(old);
      registerSearchFunctions(old);
      for (const migration of MIGRATIONS.slice(0, version)) old.exec(migration);
      old.pragma(`user_version = ${version}`);
      expect(differences(old), `version ${version}`).toEqual([]);
      old.close();
      await openSqliteStore(path, { servingIndex: false }).close();
      const migrated = new Database(path, { readonly: true });
      expect(differences(migrated), `version ${version}, migrated`).toEqual([]);
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      migrated.close();
    }
  });

  it('names a trigger that un-revokes keys, and one that deletes audit rows', async () => {
    const db = await storeFile();
    db.exec(`CREATE TRIGGER keys_unrevoke AFTER UPDATE OF revoked_at ON api_keys
             BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = NEW.id; END;
             CREATE TRIGGER audit_forget AFTER INSERT ON audit_log BEGIN DELETE FROM audit_log; END;`);
    expect(differences(db)).toEqual(['an extra trigger keys_unrevoke', 'an extra trigger audit_forget']);
    db.close();
  });

  it('names an extra view, table or index, a changed table and a missing index', async () => {
    const db = await storeFile();
    db.exec(`CREATE VIEW live_keys AS SELECT * FROM api_keys;
             CREATE TABLE notes (body TEXT);
             CREATE INDEX keys_by_name ON api_keys (name);
             ALTER TABLE api_keys ADD COLUMN owner TEXT;
             DROP INDEX audit_log_at;`);
    expect(differences(db).sort()).toEqual(
      [
        'an extra view live_keys',
        'an extra table notes',
        'an extra index keys_by_name',
        'table api_keys defined differently',
        'no index audit_log_at',
      ].sort(),
    );
    db.close();
  });

  it('lets a bulk load caught half-way lack the search indexes it drops, and only those', async () => {
    const db = await storeFile();
    db.exec('DROP INDEX people_search_company; DROP INDEX people_search_id;');
    expect(differences(db, ['people'])).toEqual([]);
    expect(differences(db, ['companies'])).toEqual([
      'no index people_search_id',
      'no index people_search_company',
    ]);
    db.close();
  });
});
