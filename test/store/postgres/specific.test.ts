// What only the PostgreSQL store does: exact bytes, identifier index rows, racing imports, read-replica routing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';

const databases: TestDatabase[] = [];
async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}
afterAll(() => Promise.all(databases.map((d) => d.drop())));

const record = (id: string, body: string, identifiers: RecordToStore['identifiers'] = []): RecordToStore => ({
  id,
  body,
  etag: `"${id}"`,
  identifiers,
});

describe('postgres store', () => {
  let database: TestDatabase;
  let store: PostgresStore;
  beforeAll(async () => {
    database = await freshDatabase();
    store = await openPostgresStore({ url: database.url });
  });
  afterAll(() => store?.close());

  it('stores bodies and identifiers with backslashes, tabs, newlines and unicode byte for byte', async () => {
    const bodies = [
      String.raw`{"id":"fp000000000101","headline":"C:\\temp\\new \"quoted\"\ttab\nline \u00e9 \u0000"}`,
      '{"id":"fp000000000102","raw":"tab\there\nnewline\r\nreturn \\N \\. end"}\n',
      '{"id":"fp000000000103","name":"Zoë Ünïcødé 😀 中文","path":"\\\\server\\share"}',
      '\\.\n\\.',
    ];
    const records = bodies.map((body, i) =>
      record(`fp00000000010${i + 1}`, body, [{ kind: 'work_email', value: `odd\\\t\n${i}@x.com` }]),
    );
    await store.upsert('people', records);
    for (const [i, body] of bodies.entries()) {
      const id = `fp00000000010${i + 1}`;
      expect((await store.getRecord('people', id))?.body).toBe(body);
      expect(await store.findIds('people', 'work_email', `odd\\\t\n${i}@x.com`, 5)).toEqual([id]);
    }
  });

  it('rejects a record with an identifier kind it does not know, keeping the batch out', async () => {
    const bad = record('fp000000000201', '{}', [{ kind: 'phone', value: '1' }] as never);
    await expect(store.upsert('people', [record('fp000000000200', '{}'), bad])).rejects.toThrow(/kind/);
    expect(await store.getRecord('people', 'fp000000000200')).toBeUndefined();
  });

  it('lets two imports of the same new records race without losing either', async () => {
    const batch = Array.from({ length: 200 }, (_, n) =>
      record(`fp0000000${String(n).padStart(5, '0')}`, `{"n":${n}}`, [
        { kind: 'linkedin', value: `race-${n}` },
      ]),
    );
    const other = await openPostgresStore({ url: database.url });
    await Promise.all([store.upsert('companies', batch), other.upsert('companies', batch)]);
    await other.close();
    expect(await store.count('companies')).toBe(200);
    expect(await store.findIds('companies', 'linkedin', 'race-199', 5)).toEqual(['fp000000000199']);
  });

  it('keeps unchanged records and replaces only the identifiers that changed', async () => {
    const before = record('fp000000000300', '{"v":1}', [
      { kind: 'linkedin', value: 'kept' },
      { kind: 'work_email', value: 'gone@x.com' },
    ]);
    await store.upsert('people', [before]);
    await store.upsert('people', [before]);
    const after = {
      ...before,
      identifiers: [before.identifiers[0]!, { kind: 'work_email' as const, value: 'new@x.com' }],
    };
    await store.upsert('people', [after]);
    expect(await store.getRecord('people', before.id)).toEqual({
      id: before.id,
      body: '{"v":1}',
      etag: before.etag,
    });
    expect(await store.findIds('people', 'linkedin', 'kept', 5)).toEqual([before.id]);
    expect(await store.findIds('people', 'work_email', 'gone@x.com', 5)).toEqual([]);
    expect(await store.findIds('people', 'work_email', 'new@x.com', 5)).toEqual([before.id]);
  });

  it('rewrites nothing when the same records are upserted again, and a changed body even under the same etag', async () => {
    const people = [1, 2].map((n) =>
      record(`fp00000000040${n}`, `{"n":${n}}`, [{ kind: 'linkedin', value: `same-${n}` }]),
    );
    await store.upsert('people', people);
    const versions = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        `SELECT xmin::text FROM people WHERE id LIKE 'fp00000000040_' ORDER BY id`,
      );
      await client.end();
      return rows.map((row) => row.xmin);
    };
    const before = await versions();
    await store.upsert('people', people);
    expect(await versions()).toEqual(before);

    await store.upsert('people', [{ ...people[0]!, body: '{"n":"changed"}' }]);
    expect((await store.getRecord('people', people[0]!.id))?.body).toBe('{"n":"changed"}');
    expect(await store.findIds('people', 'linkedin', 'same-1', 5)).toEqual([people[0]!.id]);
  });

  it('keeps exactly one index row per distinct identifier of a record, new or replaced', async () => {
    const indexRows = async (id: string) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        `SELECT i.kind, i.value FROM people_ident i JOIN people r ON r.rid = i.rid
         WHERE r.id = $1 ORDER BY i.kind, i.value`,
        [id],
      );
      await client.end();
      return rows;
    };
    const twice = { kind: 'work_email' as const, value: 'twice@x.com' };
    const person = record('fp000000000500', '{}', [twice, { kind: 'linkedin', value: 'once' }, twice]);
    await store.upsert('people', [person]);
    expect(await indexRows(person.id)).toEqual([
      { kind: 1, value: 'once' },
      { kind: 2, value: 'twice@x.com' },
    ]);
    await store.upsert('people', [{ ...person, body: '{"v":2}', identifiers: [twice, twice] }]);
    expect(await indexRows(person.id)).toEqual([{ kind: 2, value: 'twice@x.com' }]);
  });

  it('prunes whole audit segments with their key rows, and the older entries of a segment that straddles the time', async () => {
    const entry = (at: string, matched: string[]) => ({
      at,
      key_id: 'k-prune',
      operation: 'people' as const,
      params: ['id'],
      matched,
      status: matched.length > 1 ? 409 : 200,
    });
    await store.pruneAudit(new Date('9999-01-01T00:00:00.000Z'));
    // Three segments (a day apart, more than one spans), the last with two entries a minute apart.
    await store.addAudit([
      entry('2020-01-01T00:00:00.000Z', ['fp000000000601', 'fp000000000602']),
      entry('2020-01-02T00:00:00.000Z', ['fp000000000601']),
      entry('2020-01-03T00:00:00.000Z', ['fp000000000603']),
      entry('2020-01-03T00:01:00.000Z', ['fp000000000604']),
    ]);
    const tables = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        `SELECT (SELECT count(*)::int FROM audit_log) AS segments,
                (SELECT coalesce(sum(entries), 0)::int FROM audit_log) AS entries,
                (SELECT count(*)::int FROM audit_by_key) AS keys`,
      );
      await client.end();
      return rows[0];
    };
    expect(await tables()).toEqual({ segments: 3, entries: 4, keys: 3 });
    expect(await store.pruneAudit(new Date('2020-01-02T12:00:00.000Z'))).toBe(2);
    expect(await tables()).toEqual({ segments: 1, entries: 2, keys: 1 });
    expect(await store.audit({ recordId: 'fp000000000601' })).toEqual([]);
    expect(await store.pruneAudit(new Date('2020-01-03T00:00:30.000Z'))).toBe(1);
    expect(await tables()).toEqual({ segments: 1, entries: 1, keys: 1 });
    expect((await store.audit({ keyId: 'k-prune' })).map((e) => e.matched)).toEqual([['fp000000000604']]);
    expect(await store.audit({ recordId: 'fp000000000603' })).toEqual([]);
  });
});

describe('postgres store with a read URL', () => {
  // Two databases stand in for a primary and its replica: where a read lands shows which pool served it.
  let primary: TestDatabase;
  let replica: TestDatabase;
  let split: PostgresStore;
  let direct: PostgresStore;
  beforeAll(async () => {
    [primary, replica] = await Promise.all([freshDatabase(), freshDatabase()]);
    split = await openPostgresStore({ url: primary.url, readUrl: replica.url });
    direct = await openPostgresStore({ url: replica.url });
  });
  afterAll(() => Promise.all([split?.close(), direct?.close()]));

  const key = (id: string) => ({
    id,
    name: id,
    hash: `hash-${id}`,
    scopes: ['people:read' as const],
    rate: 50,
    quota: null,
    created_at: '2025-01-01T00:00:00.000Z',
    expires_at: null,
    revoked_at: null,
  });

  it('writes records and keys to the primary', async () => {
    await split.upsert('people', [
      record('fp000000000001', '{}', [{ kind: 'linkedin', value: 'on-primary' }]),
    ]);
    await split.createKey(key('k-primary'));
    expect(await split.count('people')).toBe(1);
    expect((await split.listKeys()).map((k) => k.id)).toEqual(['k-primary']);
    expect(await direct.count('people')).toBe(0);
  });

  it('looks records and keys up on the replica', async () => {
    await direct.upsert('people', [
      record('fp000000000002', '{"r":1}', [{ kind: 'linkedin', value: 'on-replica' }]),
    ]);
    await direct.createKey(key('k-replica'));
    expect(await split.findIds('people', 'linkedin', 'on-replica', 5)).toEqual(['fp000000000002']);
    expect(await split.findIds('people', 'linkedin', 'on-primary', 5)).toEqual([]);
    expect(await split.getRecord('people', 'fp000000000002')).toEqual({
      id: 'fp000000000002',
      body: '{"r":1}',
      etag: '"fp000000000002"',
    });
    expect((await split.findKeyByHash('hash-k-replica'))?.id).toBe('k-replica');
    expect(await split.findKeyByHash('hash-k-primary')).toBeUndefined();
    const exported: string[] = [];
    for await (const body of split.exportBodies('people')) exported.push(body);
    expect(exported).toEqual(['{"r":1}']);
  });

  it('counts quota use on the primary', async () => {
    await split.addQuotaUse('2025-01', new Map([['k-primary', 3]]));
    expect(await split.quotaUsed('k-primary', '2025-01')).toBe(3);
    expect(await direct.quotaUsed('k-primary', '2025-01')).toBe(0);
  });
});
