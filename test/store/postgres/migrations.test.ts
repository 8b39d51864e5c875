// PostgreSQL schema migrations: versions, races, moving data between layouts, and refusing to run behind.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { AuditEntry } from '../../../src/store/accounting.js';
import { identifierKeys, identifierRow } from '../../../src/store/postgres/identifiers.js';
import { LATEST_POSTGRES_VERSION, POSTGRES_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import {
  DatabaseNotMigratedError,
  migratePostgres,
  openPostgresStore,
  postgresSchemaStatus,
} from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { StoreUnavailableError } from '../../../src/store/unavailable.js';
import { auditAsListed, legacyEntries, legacyQueries } from '../../helpers/audit-model.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';

const databases: TestDatabase[] = [];
async function unmigratedDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  databases.push(database);
  return database;
}
afterAll(() => Promise.all(databases.map((d) => d.drop())));

/** A database migrated by hand up to just before `version`, and a client connected to it. */
async function databaseBefore(version: number): Promise<{ url: string; client: pg.Client }> {
  const { url } = await unmigratedDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TABLE schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const m of POSTGRES_MIGRATIONS.filter((m) => m.version < version)) {
    await client.query(m.sql);
    await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  return { url, client };
}

describe('postgres migrations', () => {
  it('reports an empty database as behind, migrates it once, and then reports it current', async () => {
    const { url } = await unmigratedDatabase();
    expect(await postgresSchemaStatus(url)).toEqual({ current: 0, latest: LATEST_POSTGRES_VERSION });
    // Every migration's version, in order (numbers may skip one another branch takes).
    const versions = POSTGRES_MIGRATIONS.map((m) => m.version);
    expect(await migratePostgres(url)).toEqual({ applied: versions });
    expect(await migratePostgres(url)).toEqual({ applied: [] });
    expect(await postgresSchemaStatus(url)).toEqual({
      current: LATEST_POSTGRES_VERSION,
      latest: LATEST_POSTGRES_VERSION,
    });
  });

  it('applies each migration once when two runs race', async () => {
    const { url } = await unmigratedDatabase();
    const runs = await Promise.all([migratePostgres(url), migratePostgres(url)]);
    expect(runs.flatMap((r) => r.applied)).toHaveLength(POSTGRES_MIGRATIONS.length);
  });

  it('moves identifiers onto their records (migration 3) and keeps finding and replacing them', async () => {
    const { url, client } = await databaseBefore(3);
    await client.query(`INSERT INTO people (id, etag, body) VALUES ('fp000000000001', '"e"', '{}')`);
    await client.query(
      `INSERT INTO people_ident (kind, value, rid) VALUES (1, 'jane', 1), (2, 'jane@x.com', 1)`,
    );
    await client.end();

    const later = POSTGRES_MIGRATIONS.filter((m) => m.version >= 3).map((m) => m.version);
    expect(await migratePostgres(url)).toEqual({ applied: later });
    const store = await openPostgresStore({ url });
    expect(await store.findIds('people', 'work_email', 'jane@x.com', 5)).toEqual(['fp000000000001']);
    const jane = { id: 'fp000000000001', body: '{}', etag: '"e"' };
    await store.upsert('people', [{ ...jane, identifiers: [{ kind: 'linkedin', value: 'jane' }] }]);
    expect(await store.findIds('people', 'work_email', 'jane@x.com', 5)).toEqual([]);
    expect(await store.findIds('people', 'linkedin', 'jane', 5)).toEqual(['fp000000000001']);
    expect(await store.delete('people', ['fp000000000001'])).toBe(1);
    expect(await store.findIds('people', 'linkedin', 'jane', 5)).toEqual([]);
    await store.close();
  });

  it('keeps the previous token hash of a key rotated before migration 6 as a retired one', async () => {
    const { url, client } = await databaseBefore(6);
    await client.query(
      `INSERT INTO api_keys (id, name, hash, scopes, rate, created_at, previous_hash, previous_expires_at)
       VALUES ('k1', 'old', 'hash-2', '{people:read}', 5, '2025-01-01T00:00:00.000Z', 'hash-1', '2025-01-02T00:00:00.000Z')`,
    );
    await client.end();

    expect((await migratePostgres(url)).applied).toContain(6);
    const store = await openPostgresStore({ url });
    expect(await store.rotateKey('k1', 'hash-3', new Date('2025-02-01T00:00:00.000Z'))).toBe(true);
    for (const hash of ['hash-1', 'hash-2', 'hash-3'])
      expect((await store.findKeyByHash(hash))?.id).toBe('k1');
    await store.close();
  });

  it('fills the search tables from the records on file (the search migration)', async () => {
    const search = POSTGRES_MIGRATIONS.find((m) => m.name === 'search tables')!;
    const { url, client } = await databaseBefore(search.version);
    const insert = (table: string, id: string, record: object) =>
      client.query(`INSERT INTO ${table} (id, etag, body) VALUES ($1, '"e"', $2)`, [
        id,
        JSON.stringify({ id, ...record }),
      ]);
    await insert('companies', 'c1', { name: 'Kiwi Ledger', hq_country: 'New Zealand' });
    await insert('people', 'p1', { position: 'Engineering Manager', current_company: { id: 'c1' } });
    await insert('people', 'p2', { position: 'Sales Manager', location: ['Sydney', 'Australia'] });
    await client.end();

    expect((await migratePostgres(url)).applied).toContain(search.version);
    const store = await openPostgresStore({ url });
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

  it('adds the dictionary of positions to search tables filled before it (migration 10)', async () => {
    const search = POSTGRES_MIGRATIONS.find((m) => m.name === 'search tables')!;
    const positions = POSTGRES_MIGRATIONS.find((m) => m.name === 'dictionary of positions')!;
    const { url, client } = await databaseBefore(positions.version);
    const insert = (id: string, record: object) =>
      client.query(`INSERT INTO people (id, etag, body) VALUES ($1, '"e"', $2)`, [
        id,
        JSON.stringify({ id, ...record }),
      ]);
    await insert('p1', { position: 'Engineering Manager', seniority: 'Manager' });
    await insert('p2', { position: 'Sales Manager' });
    await insert('p3', { position: 'Engineering Manager' });
    await insert('p4', {});
    await search.fill!(client);
    await client.end();

    // It, and every migration after it.
    expect((await migratePostgres(url)).applied).toEqual(
      POSTGRES_MIGRATIONS.filter((m) => m.version >= positions.version).map((m) => m.version),
    );
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query('SELECT position FROM people_positions ORDER BY position');
    expect(rows.map((row) => row.position)).toEqual([' engineering manager', ' sales manager']);
    const { rows: index } = await check.query(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'people_search_position'",
    );
    expect(index[0].indexdef).toContain('btree ("position", id) INCLUDE (rid)');
    await check.end();
    const store = await openPostgresStore({ url });
    const people = (filters: object) => store.searchPeople({ filters, limit: 10 });
    expect((await people({ position: ['man'] })).hits.map((hit) => hit.id)).toEqual(['p1', 'p2', 'p3']);
    expect((await people({ position: ['eng', 'man'], seniorities: [5] })).hits.map((h) => h.id)).toEqual([
      'p1',
    ]);
    expect((await people({ position: ['sales'] })).total).toEqual({ value: 1, relation: 'eq' });
    await store.close();
  });

  it('indexes the e-mail hashes of records stored before migration 7, as an import lists them', async () => {
    const { url, client } = await databaseBefore(7);
    const jane = prepareLine(
      'people',
      JSON.stringify({
        id: 'fp000000000001',
        linkedin: 'jane-doe',
        emails: { work: [{ value: 'Jane@Acme.com.au' }], personal: [{ value: 'zoë@example.com' }] },
      }),
    ) as RecordToStore;
    // As migration 6 left it: the plain identifiers, on the record and in the index.
    const plain = identifierKeys({
      ...jane,
      identifiers: jane.identifiers.filter((i) => !i.kind.endsWith('sha256')),
    });
    await client.query(`INSERT INTO people (rid, id, etag, body, idents) VALUES (1, $1, $2, $3, $4)`, [
      jane.id,
      jane.etag,
      jane.body,
      plain,
    ]);
    for (const key of plain) {
      const { kind, value } = identifierRow(key, 1);
      await client.query('INSERT INTO people_ident (kind, value, rid) VALUES ($1, $2, 1)', [kind, value]);
    }
    await client.end();

    expect((await migratePostgres(url)).applied).toContain(7);
    const store = await openPostgresStore({ url });
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(await store.findIds('people', 'work_email_sha256', sha256('jane@acme.com.au'), 5)).toEqual([
      jane.id,
    ]);
    expect(await store.findIds('people', 'personal_email_sha256', sha256('zoë@example.com'), 5)).toEqual([
      jane.id,
    ]);
    // The record's list is what an import writes now, and a later write removes exactly the rows it drops.
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ idents: string[] }>('SELECT idents FROM people');
    expect(rows[0]?.idents).toEqual(identifierKeys(jane));
    await store.upsert('people', [
      { ...jane, identifiers: jane.identifiers.filter((i) => i.kind !== 'work_email_sha256') },
    ]);
    expect(await store.findIds('people', 'work_email_sha256', sha256('jane@acme.com.au'), 5)).toEqual([]);
    const count = await check.query<{ n: string }>('SELECT count(*) AS n FROM people_ident');
    expect(Number(count.rows[0]?.n)).toBe(jane.identifiers.length - 1);
    await check.end();
    await store.close();
  });

  it('indexes the names at companies of people stored before migration 9, as an import lists them', async () => {
    const { url, client } = await databaseBefore(9);
    const jane = prepareLine(
      'people',
      JSON.stringify({
        id: 'fp000000000001',
        name: 'Dr Zoë Anne Citizen',
        linkedin: 'zoe-citizen',
        current_company: { id: 'f1', linkedin: 'acme-holdings', name: 'Acme Holdings Limited' },
      }),
    ) as RecordToStore;
    // As migration 8 left it: the identifiers of before, on the record and in the index.
    const plain = identifierKeys({
      ...jane,
      identifiers: jane.identifiers.filter((i) => !i.kind.startsWith('name_at_')),
    });
    await client.query(`INSERT INTO people (rid, id, etag, body, idents) VALUES (1, $1, $2, $3, $4)`, [
      jane.id,
      jane.etag,
      jane.body,
      plain,
    ]);
    for (const key of plain) {
      const { kind, value } = identifierRow(key, 1);
      await client.query('INSERT INTO people_ident (kind, value, rid) VALUES ($1, $2, 1)', [kind, value]);
    }
    await client.end();

    expect((await migratePostgres(url)).applied).toEqual(
      POSTGRES_MIGRATIONS.filter((m) => m.version >= 9).map((m) => m.version),
    );
    const store = await openPostgresStore({ url });
    expect(await store.findIds('people', 'name_at_company_id', 'f1|citizen', 5)).toEqual([jane.id]);
    expect(await store.findIds('people', 'name_at_linkedin', 'acme-holdings|citizen', 5)).toEqual([jane.id]);
    expect(await store.findIds('people', 'name_at_company_name', 'acme holdings|citizen', 5)).toEqual([
      jane.id,
    ]);
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ idents: string[] }>('SELECT idents FROM people');
    expect(rows[0]?.idents).toEqual(identifierKeys(jane));
    const count = await check.query<{ n: string }>('SELECT count(*) AS n FROM people_ident');
    expect(Number(count.rows[0]?.n)).toBe(jane.identifiers.length);
    await check.end();
    await store.close();
  });

  it('packs the audit entries stored before migration 21 into segments, every query answering as before', async () => {
    const { url, client } = await databaseBefore(21);
    // 3,000 entries as migration 20 left them: ids from 501, a minute apart over two days.
    const base = Date.UTC(2026, 5, 1);
    const entries = legacyEntries(3_000, base, 60_000);
    await client.query({
      text: `INSERT INTO audit_log (id, at, key_id, operation, params, matched, status)
             SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::smallint[])`,
      values: [
        entries.map((_, i) => 501 + i),
        entries.map((e) => e.at),
        entries.map((e) => e.key_id),
        entries.map((e) => e.operation),
        entries.map((e) => e.params.join(',')),
        entries.map((e) => e.matched.join(',')),
        entries.map((e) => e.status),
      ],
    });
    await client.query(
      `INSERT INTO audit_match (record_id, audit_id)
       SELECT DISTINCT unnest(string_to_array(matched, ',')), id FROM audit_log WHERE matched <> ''`,
    );
    await client.end();

    expect((await migratePostgres(url)).applied).toEqual([21]);
    const store = await openPostgresStore({ url });
    const later: AuditEntry = {
      ...entries[0]!,
      at: new Date(base + 4 * 86_400_000).toISOString(),
      matched: ['fp7'],
    };
    await store.addAudit([later]);
    const all = [...entries, later];
    const queries = legacyQueries(base, 180_000_000);
    for (const q of queries) {
      expect(await store.audit(q), JSON.stringify(q)).toEqual(auditAsListed(all, q));
    }
    await store.close();
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ name: string }>(
      "SELECT relname AS name FROM pg_class WHERE relname LIKE 'audit%' AND relkind = 'r' ORDER BY relname",
    );
    expect(rows.map((r) => r.name)).toEqual(['audit_by_key', 'audit_log']);
    await check.end();
  });

  it('refuses to open an unmigrated database, saying to run enrich migrate', async () => {
    const { url } = await unmigratedDatabase();
    const opening = openPostgresStore({ url });
    await expect(opening).rejects.toBeInstanceOf(DatabaseNotMigratedError);
    await expect(opening).rejects.toThrow(/not migrated.*run `enrich migrate`/);
  });

  it('reports an unreachable server as unavailable', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/nowhere';
    await expect(openPostgresStore({ url })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(postgresSchemaStatus(url)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
