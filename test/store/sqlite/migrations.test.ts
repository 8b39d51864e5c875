// SQLite schema migrations: a store of every earlier layout upgrades with its data when it is opened, and a
// backup taken before a migration restores and upgrades too.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { AuditEntry } from '../../../src/store/accounting.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { IDENTIFIER_KIND_CODES } from '../../../src/store/sql/tables.js';
import { restoreStore } from '../../../src/store/sqlite/backup.js';
import { MIGRATIONS, registerMigrationFunctions } from '../../../src/store/sqlite/schema.js';
import { SEARCH_MIGRATION } from '../../../src/store/sqlite/search-schema.js';
import { registerSearchFunctions } from '../../../src/store/sqlite/search-writes.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';
import { auditAsListed, legacyEntries, legacyQueries } from '../../helpers/audit-model.js';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const dirs: string[] = [];
const tempPath = (...parts: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-sqlite-'));
  dirs.push(dir);
  return join(dir, ...parts);
};

/**
 * Back before version 21: its column and indexes go (the migrations after an earlier version are run again,
 * and version 18's make its indexes).
 */
const UNDO_CLAIMER = `DROP INDEX webhook_deliveries_pending; DROP INDEX webhook_deliveries_leased;
  ALTER TABLE webhook_deliveries DROP COLUMN claimer`;
/** Migration 22 undone: the audit log's tables as version 21 made them (empty). */
const UNDO_AUDIT_SEGMENTS = `DROP TABLE audit_log; DROP TABLE audit_by_key; DROP TABLE audit_match;
  CREATE TABLE audit_log (id INTEGER PRIMARY KEY, at TEXT NOT NULL, key_id TEXT NOT NULL,
    operation TEXT NOT NULL, params TEXT NOT NULL, matched TEXT NOT NULL, status INTEGER NOT NULL);
  CREATE INDEX audit_log_key ON audit_log (key_id, at);
  CREATE INDEX audit_log_at ON audit_log (at);
  CREATE TABLE audit_match (bucket INTEGER NOT NULL, record_id TEXT NOT NULL, audit_id INTEGER NOT NULL,
    PRIMARY KEY (bucket, record_id, audit_id)) WITHOUT ROWID;`;

/** A database migrated by hand to `version`, as a service of that version left it. */
function databaseAt(path: string, version: number): Database.Database {
  const db = new Database(path);
  registerMigrationFunctions(db);
  registerSearchFunctions(db);
  for (const sql of MIGRATIONS.slice(0, version)) db.exec(sql);
  db.pragma(`user_version = ${version}`);
  return db;
}

/** Two keys created in the same instant (listed by the order they were made), one rotated once. */
function keysOfVersion12(db: Database.Database): void {
  const insert = db.prepare(
    `INSERT INTO keys (id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at, previous_hash, previous_expires_at)
     VALUES (?, ?, ?, ?, ?, ?, '2025-01-01T00:00:00.000Z', ?, NULL, ?, ?)`,
  );
  insert.run(
    'k2',
    'second',
    'hash-2b',
    '["people:read"]',
    5,
    100,
    null,
    'hash-2a',
    '2025-02-01T00:00:00.000Z',
  );
  insert.run('k1', 'first', 'hash-1', '["company:read"]', 7.5, null, '2026-01-01T00:00:00.000Z', null, null);
  db.prepare("INSERT INTO retired_key_hashes (hash, key_id) VALUES ('hash-2a', 'k2')").run();
}

describe('sqlite migrations', () => {
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const record = { id: 'fp000000000001', body: '{"id":"fp000000000001"}', etag: '"e"' };

  it('moves the identifiers of a version 2 database to the id-keyed index', async () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 2)) db.exec(sql);
    db.prepare('INSERT INTO people (rid, id, etag, body) VALUES (7, ?, ?, ?)').run(
      record.id,
      record.etag,
      record.body,
    );
    db.prepare('INSERT INTO people_ident (kind, value, rid) VALUES (1, ?, 7), (2, ?, 7)').run(
      'jane',
      'j@x.com',
    );
    db.pragma('user_version = 2');
    db.close();

    const store = openSqliteStore(path);
    expect(await store.findIds('people', 'linkedin', 'jane', 5)).toEqual([record.id]);
    expect(await store.findIds('people', 'work_email', 'j@x.com', 5)).toEqual([record.id]);
    await store.upsert('people', [{ ...record, identifiers: [{ kind: 'linkedin', value: 'jane' }] }]);
    expect(await store.findIds('people', 'work_email', 'j@x.com', 5)).toEqual([]);
    expect(await store.delete('people', [record.id])).toBe(1);
    expect(await store.findIds('people', 'linkedin', 'jane', 5)).toEqual([]);
    await store.close();
  });

  it('keeps the previous token hash of a key rotated before version 8 as a retired one', async () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 7)) db.exec(sql);
    db.prepare(
      `INSERT INTO keys (id, name, hash, scopes, rate, created_at, previous_hash, previous_expires_at)
       VALUES ('k1', 'old', 'hash-2', '["people:read"]', 5, '2025-01-01T00:00:00.000Z', 'hash-1', '2025-01-02T00:00:00.000Z')`,
    ).run();
    db.pragma('user_version = 7');
    db.close();

    const store = openSqliteStore(path);
    expect(await store.rotateKey('k1', 'hash-3', new Date('2025-02-01T00:00:00.000Z'))).toBe(true);
    for (const hash of ['hash-1', 'hash-2', 'hash-3'])
      expect((await store.findKeyByHash(hash))?.id).toBe('k1');
    await store.close();
  });

  it('fills the search tables from the records of a database made before search', async () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    const before = MIGRATIONS.indexOf(SEARCH_MIGRATION);
    registerMigrationFunctions(db);
    for (const sql of MIGRATIONS.slice(0, before)) db.exec(sql);
    const insert = (table: string, id: string, record: object) =>
      db
        .prepare(`INSERT INTO ${table} (id, etag, body) VALUES (?, '"e"', ?)`)
        .run(id, JSON.stringify({ id, ...record }));
    insert('companies', 'c1', { name: 'Kiwi Ledger', hq_country: 'New Zealand' });
    insert('people', 'p1', { position: 'Engineering Manager', current_company: { id: 'c1' } });
    insert('people', 'p2', { position: 'Sales Manager', location: ['Sydney', 'Australia'] });
    db.pragma(`user_version = ${before}`);
    db.close();

    const store = openSqliteStore(path);
    const ids = async (filters: object) =>
      (await store.searchPeople({ filters, limit: 10 })).hits.map((hit) => hit.id);
    expect(await ids({ position: ['man'] })).toEqual(['p1', 'p2']);
    expect(await ids({ position: ['eng'], countries: ['NZ'] })).toEqual(['p1']);
    expect(await ids({ countries: ['AU'] })).toEqual(['p2']);
    expect(
      (await store.searchCompanies({ filters: {}, q: ['ledger'], limit: 10 })).hits.map((h) => h.id),
    ).toEqual(['c1']);
    await store.close();
  });

  it('adds the dictionary of positions to a version 10 database, dropping the FTS index it replaces', async () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    const before = MIGRATIONS.indexOf(SEARCH_MIGRATION);
    registerMigrationFunctions(db);
    registerSearchFunctions(db);
    for (const sql of MIGRATIONS.slice(0, before)) db.exec(sql);
    const insert = db.prepare(`INSERT INTO people (id, etag, body) VALUES (?, '"e"', ?)`);
    const person = (id: string, record: object) => insert.run(id, JSON.stringify({ id, ...record }));
    person('p1', { position: 'Engineering Manager', seniority: 'Manager' });
    person('p2', { position: 'Sales Manager' });
    person('p3', { position: 'Engineering Manager' });
    person('p4', {});
    db.exec(SEARCH_MIGRATION);
    // Version 10 as it was first released: an FTS5 index of every person's position.
    db.exec(
      `CREATE VIRTUAL TABLE people_position_fts USING fts5(position, content = '', tokenize = 'ascii')`,
    );
    db.pragma(`user_version = ${before + 1}`);
    db.close();

    const store = openSqliteStore(path);
    const people = (filters: object) => store.searchPeople({ filters, limit: 10 });
    expect((await people({ position: ['man'] })).hits.map((hit) => hit.id)).toEqual(['p1', 'p2', 'p3']);
    expect((await people({ position: ['eng', 'man'], seniorities: [5] })).hits.map((h) => h.id)).toEqual([
      'p1',
    ]);
    expect((await people({ position: ['sales'] })).total).toEqual({ value: 1, relation: 'eq' });
    await store.close();
    const after = new Database(path, { readonly: true });
    const names = after.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'people_position%'").pluck();
    const tables = names.all() as string[];
    expect(tables).toEqual(expect.arrayContaining(['people_positions', 'people_positions_fts']));
    expect(tables.filter((name) => name.startsWith('people_position_fts'))).toEqual([]);
    expect(after.prepare('SELECT position FROM people_positions ORDER BY position').pluck().all()).toEqual([
      ' engineering manager',
      ' sales manager',
    ]);
    after.close();
  });

  it('indexes the e-mail hashes of records stored before version 9 as an import lists them, index included', async () => {
    const path = tempPath('enrich.db');
    const jane = prepareLine(
      'people',
      JSON.stringify({
        id: 'fp000000000001',
        linkedin: 'jane-doe',
        emails: {
          work: [{ value: 'Jane@Acme.com.au' }, { value: 'info@acme.com.au' }],
          personal: [{ value: 'zoë@example.com' }],
        },
      }),
    ) as RecordToStore;
    const hashed = (kind: string) => kind.endsWith('_sha256');
    // As version 8 stored it: no hashes, in SQLite and in the serving index beside it.
    const before = openSqliteStore(path);
    await before.upsert('people', [
      { ...jane, identifiers: jane.identifiers.filter((i) => !hashed(i.kind)) },
    ]);
    await before.close();
    const db = new Database(path);
    // Back to version 8: the later migrations' tables go (search's, positions'), its number with them.
    const virtual = db.prepare("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'");
    for (const name of virtual.pluck().all()) db.exec(`DROP TABLE ${name}`);
    db.exec('DROP TABLE people_search; DROP TABLE companies_search; DROP TABLE people_positions;');
    db.exec(UNDO_CLAIMER);
    db.exec(UNDO_AUDIT_SEGMENTS);
    db.pragma('user_version = 8');
    db.close();

    const store = openSqliteStore(path);
    // Read from the serving index, rebuilt: it held no hashes.
    const hash = sha256Hex('zoë@example.com');
    const served = store.findRecords('people', 'personal_email_sha256', hash, 11).map((r) => r.id);
    expect(served).toEqual([jane.id]);
    expect(await store.findIds('people', 'work_email_sha256', sha256Hex('jane@acme.com.au'), 5)).toEqual([
      jane.id,
    ]);
    await store.close();
    const after = new Database(path, { readonly: true });
    const idents = after.prepare('SELECT idents FROM people').pluck().get();
    expect(idents).toBe(
      JSON.stringify(jane.identifiers.map(({ kind, value }) => [IDENTIFIER_KIND_CODES[kind], value])),
    );
    expect(after.prepare('SELECT count(*) FROM people_ident').pluck().get()).toBe(jane.identifiers.length);
    after.close();
  });

  it('indexes the names at companies of people stored before version 11 as an import lists them, index included', async () => {
    const path = tempPath('enrich.db');
    const jane = prepareLine(
      'people',
      JSON.stringify({
        id: 'fp000000000001',
        first_name: 'Zoë',
        last_name: "O'Brien",
        emails: { work: [{ value: 'zoe@acme.com.au' }] },
        current_company: { id: 'f1', name: 'Acme Pty Ltd', website: 'https://www.acme.com.au' },
      }),
    ) as RecordToStore;
    const isName = (kind: string) => kind.startsWith('name_at_');
    expect(jane.identifiers.filter((i) => isName(i.kind)).map((i) => i.value)).toEqual([
      'f1|obrien',
      'acme.com.au|obrien',
      'acme|obrien',
    ]);
    // As version 10 stored it: no names at companies, in SQLite and in the serving index beside it.
    const before = openSqliteStore(path);
    await before.upsert('people', [
      { ...jane, identifiers: jane.identifiers.filter((i) => !isName(i.kind)) },
    ]);
    expect(before.findRecords('people', 'name_at_company_id', 'f1|obrien', 11)).toEqual([]);
    await before.close();
    const db = new Database(path);
    db.exec(UNDO_CLAIMER);
    db.exec(UNDO_AUDIT_SEGMENTS);
    db.pragma('user_version = 10');
    db.close();

    const store = openSqliteStore(path);
    // Read from the serving index, rebuilt: it held no names.
    expect(store.findRecords('people', 'name_at_domain', 'acme.com.au|obrien', 11).map((r) => r.id)).toEqual([
      jane.id,
    ]);
    expect(await store.findIds('people', 'name_at_company_name', 'acme|obrien', 5)).toEqual([jane.id]);
    await store.close();
    const after = new Database(path, { readonly: true });
    const idents = after.prepare('SELECT idents FROM people').pluck().get();
    expect(idents).toBe(
      JSON.stringify(jane.identifiers.map(({ kind, value }) => [IDENTIFIER_KIND_CODES[kind], value])),
    );
    expect(after.prepare('SELECT count(*) FROM people_ident').pluck().get()).toBe(jane.identifiers.length);
    after.close();
  });

  it('carries the audit record index of a version 3 database into buckets', async () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
    const insert = db.prepare(
      `INSERT INTO audit_log (id, at, key_id, operation, params, matched, status)
       VALUES (?, ?, 'k1', 'people', 'id', ?, 200)`,
    );
    insert.run(3, '2025-01-01T00:00:00.000Z', 'fp1');
    insert.run(40_000, '2025-01-02T00:00:00.000Z', 'fp1,fp2');
    db.prepare('INSERT INTO audit_match (record_id, audit_id) VALUES (?, ?)').run('fp1', 3);
    db.prepare('INSERT INTO audit_match (record_id, audit_id) VALUES (?, ?), (?, ?)').run(
      'fp1',
      40_000,
      'fp2',
      40_000,
    );
    db.pragma('user_version = 3');
    db.close();

    const store = openSqliteStore(path);
    const times = async (recordId: string) => (await store.audit({ recordId })).map((e) => e.at);
    expect(await times('fp1')).toEqual(['2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z']);
    expect(await times('fp2')).toEqual(['2025-01-02T00:00:00.000Z']);
    await store.close();
  });

  it('packs the audit entries of a version 21 database into segments, every query answering as before', async () => {
    const path = tempPath('enrich.db');
    const db = databaseAt(path, 21);
    // 6,000 entries as version 21 wrote them: ids from 1,001 (older ones pruned), six seconds apart over ten hours.
    const base = Date.UTC(2026, 5, 1);
    const entries = legacyEntries(6_000, base, 6_000);
    const insert = db.prepare(
      'INSERT INTO audit_log (id, at, key_id, operation, params, matched, status) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const match = db.prepare('INSERT INTO audit_match (bucket, record_id, audit_id) VALUES (?, ?, ?)');
    db.transaction(() => {
      entries.forEach((e, i) => {
        const id = 1_001 + i;
        insert.run(id, e.at, e.key_id, e.operation, e.params.join(','), e.matched.join(','), e.status);
        for (const record of e.matched) match.run(id >> 14, record, id);
      });
    })();
    db.close();

    const store = openSqliteStore(path, { servingIndex: false });
    const later: AuditEntry = {
      ...entries[0]!,
      at: new Date(base + 86_400_000).toISOString(),
      matched: ['fp7'],
    };
    await store.addAudit([later]);
    const all = [...entries, later];
    const queries = legacyQueries(base, 36_000_000);
    for (const q of queries) {
      expect(await store.audit(q), JSON.stringify(q)).toEqual(auditAsListed(all, q));
    }
    const cut = new Date(base + 3_600_000 * 4);
    expect(await store.pruneAudit(cut)).toBe(all.filter((e) => Date.parse(e.at) < cut.getTime()).length);
    expect(await store.audit({ recordId: 'fp7' })).toEqual(
      auditAsListed(all, { recordId: 'fp7', since: cut.toISOString() }),
    );
    await store.close();
    const after = new Database(path, { readonly: true });
    const tables = after.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'audit%' ORDER BY name");
    expect(tables.pluck().all()).toEqual(['audit_by_key', 'audit_log', 'audit_log_at', 'audit_match']);
    after.close();
  });

  it('moves the keys of a version 12 database to api_keys, every setting and hash with them', async () => {
    const path = tempPath('enrich.db');
    const db = databaseAt(path, 12);
    keysOfVersion12(db);
    db.close();

    const store = openSqliteStore(path);
    const keys = await store.listKeys();
    expect(keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(keys[0]).toEqual({
      id: 'k2',
      name: 'second',
      hash: 'hash-2b',
      scopes: ['people:read'],
      rate: 5,
      quota: 100,
      created_at: '2025-01-01T00:00:00.000Z',
      expires_at: null,
      revoked_at: null,
      previous_hash: 'hash-2a',
      previous_expires_at: '2025-02-01T00:00:00.000Z',
      search_quota: null,
    });
    expect(await store.getKey('k1')).toMatchObject({ rate: 7.5, quota: null, scopes: ['company:read'] });
    expect((await store.findKeyByHash('hash-2a'))?.id).toBe('k2');
    expect(await store.rotateKey('k1', 'hash-1b', new Date('2026-02-01T00:00:00.000Z'))).toBe(true);
    expect((await store.findKeyByHash('hash-1'))?.id).toBe('k1');
    await store.close();
    const after = new Database(path, { readonly: true });
    const tables = after.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '%keys'");
    expect(tables.pluck().all()).toEqual(['api_keys']);
    after.close();
  });

  it('restores a backup taken before the keys moved, and upgrades it as it opens', async () => {
    const backup = tempPath('backup.db');
    const db = databaseAt(backup, 12);
    keysOfVersion12(db);
    db.pragma('journal_mode = DELETE');
    db.close();

    const restored = tempPath('restored.db');
    expect(await restoreStore(backup, restored)).toMatchObject({ schemaVersion: 12, keys: 2 });
    const store = openSqliteStore(restored);
    expect((await store.listKeys()).map((k) => k.id)).toEqual(['k2', 'k1']);
    await store.close();
  });
});
