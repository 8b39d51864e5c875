// The records role's contract on every backend: records by id and identifier, upserts, bulk loads, deletes and
// exports (lookups by hashed e-mail and by name at a company in ./records-hashed-emails.ts, ./records-name-match.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordStore, RecordToStore } from '../../../src/store/records.js';
import type { Identifier } from '../../../src/vocabulary/entities.js';
import { hashedEmailContract } from './records-hashed-emails.js';
import { nameMatchContract } from './records-name-match.js';

const person = (n: number, identifiers: Identifier[], extra = ''): RecordToStore => {
  const id = `fp${String(n).padStart(12, '0')}`;
  return { id, body: `{"id":"${id}"${extra}}`, etag: `"etag-${id}${extra.length}"`, identifiers };
};
const email = (value: string): Identifier => ({ kind: 'work_email', value });

async function collect(bodies: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const body of bodies) out.push(body);
  return out;
}

/** Registers the records contract's tests; `open()` is the suite's fresh, empty store. */
export function recordsContract(open: () => RecordStore) {
  let store: RecordStore;
  beforeEach(() => {
    store = open();
  });

  it('returns a stored record byte for byte with its etag', async () => {
    const body = '{ "id":"fp000000000001",  "name" : "Zoë 😀", "middle_name":null }';
    await store.upsert('people', [{ id: 'fp000000000001', body, etag: '"abc"', identifiers: [] }]);
    expect(await store.getRecord('people', 'fp000000000001')).toEqual({
      id: 'fp000000000001',
      body,
      etag: '"abc"',
    });
    expect(await store.getRecord('people', 'fp000000000002')).toBeUndefined();
    expect(await store.getRecord('companies', 'fp000000000001')).toBeUndefined();
  });

  it('finds people by each identifier kind', async () => {
    await store.upsert('people', [
      person(1, [
        { kind: 'linkedin', value: 'jane-doe' },
        { kind: 'work_email', value: 'jane@acme.com.au' },
        { kind: 'personal_email', value: 'jane@gmail.com' },
      ]),
    ]);
    const id = 'fp000000000001';
    expect(await store.findIds('people', 'linkedin', 'jane-doe', 10)).toEqual([id]);
    expect(await store.findIds('people', 'work_email', 'jane@acme.com.au', 10)).toEqual([id]);
    expect(await store.findIds('people', 'personal_email', 'jane@gmail.com', 10)).toEqual([id]);
    expect(await store.findIds('people', 'personal_email', 'jane@acme.com.au', 10)).toEqual([]);
    expect(await store.findIds('companies', 'linkedin', 'jane-doe', 10)).toEqual([]);
  });

  it('finds companies by each identifier kind', async () => {
    const body = '{"id":"f000000000007"}';
    await store.upsert('companies', [
      {
        id: 'f000000000007',
        body,
        etag: '"c"',
        identifiers: [
          { kind: 'linkedin', value: 'acme' },
          { kind: 'domain', value: 'acme.com.au' },
          { kind: 'abn', value: '51824753556' },
        ],
      },
    ]);
    for (const [kind, value] of [
      ['linkedin', 'acme'],
      ['domain', 'acme.com.au'],
      ['abn', '51824753556'],
    ] as const) {
      expect(await store.findIds('companies', kind, value, 10)).toEqual(['f000000000007']);
    }
    expect(await store.findIds('people', 'linkedin', 'acme', 10)).toEqual([]);
  });

  hashedEmailContract(() => store);

  describe('name and company', () => nameMatchContract(() => store));

  it('serves records with their stored bytes by id and by identifier, limited, in id order', async () => {
    const body = '{ "id":"fp000000000002",  "name" : "Zoë 😀" }';
    await store.upsert('people', [
      person(3, [email('team@acme.com')]),
      { id: 'fp000000000002', body, etag: '"z"', identifiers: [email('team@acme.com')] },
      person(1, [email('team@acme.com'), { kind: 'linkedin', value: 'one' }]),
    ]);
    const served = async (kind: Parameters<RecordStore['findRecords']>[1], value: string, limit: number) =>
      (await store.findRecords('people', kind, value, limit)).map((r) => ({
        id: r.id,
        etag: r.etag,
        body: Buffer.from(r.body).toString('utf8'),
      }));
    expect(await served('id', 'fp000000000002', 11)).toEqual([{ id: 'fp000000000002', etag: '"z"', body }]);
    expect(await served('id', 'fp000000000009', 11)).toEqual([]);
    expect((await served('work_email', 'team@acme.com', 11)).map((r) => r.id)).toEqual([
      'fp000000000001',
      'fp000000000002',
      'fp000000000003',
    ]);
    expect((await served('work_email', 'team@acme.com', 2)).map((r) => r.id)).toEqual([
      'fp000000000001',
      'fp000000000002',
    ]);
    expect(await served('linkedin', 'one', 11)).toEqual([
      { id: 'fp000000000001', etag: '"etag-fp0000000000010"', body: '{"id":"fp000000000001"}' },
    ]);
    expect(await served('linkedin', 'nobody', 11)).toEqual([]);
    expect(await store.findRecords('companies', 'work_email', 'team@acme.com', 11)).toEqual([]);
  });

  it('replaces a record and its identifiers on re-upsert', async () => {
    await store.upsert('people', [person(1, [email('old@acme.com')])]);
    await store.upsert('people', [person(1, [email('new@acme.com')], ',"v":2')]);
    expect(await store.findIds('people', 'work_email', 'old@acme.com', 10)).toEqual([]);
    expect(await store.findIds('people', 'work_email', 'new@acme.com', 10)).toEqual(['fp000000000001']);
    expect((await store.getRecord('people', 'fp000000000001'))?.body).toBe('{"id":"fp000000000001","v":2}');
    expect(await store.count('people')).toBe(1);
  });

  it('keeps the identifiers a re-upsert keeps, drops those it drops and adds the new, in any order', async () => {
    const slug = (value: string): Identifier => ({ kind: 'linkedin', value });
    await store.upsert('people', [person(1, [slug('jo-b'), email('old@acme.com'), email('both@acme.com')])]);
    await store.upsert('people', [person(2, [email('old@acme.com')])]);
    await store.upsert('people', [
      person(1, [email('new@acme.com'), email('both@acme.com'), slug('jo-b')], ',"v":2'),
    ]);
    const found = (kind: Identifier['kind'], value: string) => store.findIds('people', kind, value, 10);
    expect(await found('linkedin', 'jo-b')).toEqual(['fp000000000001']);
    expect(await found('work_email', 'both@acme.com')).toEqual(['fp000000000001']);
    expect(await found('work_email', 'new@acme.com')).toEqual(['fp000000000001']);
    // Another record's identical identifier is its own: only this record's is dropped.
    expect(await found('work_email', 'old@acme.com')).toEqual(['fp000000000002']);
    await store.upsert('people', [person(1, [], ',"v":3')]);
    for (const value of ['both@acme.com', 'new@acme.com'])
      expect(await found('work_email', value)).toEqual([]);
    expect(await found('linkedin', 'jo-b')).toEqual([]);
  });

  it('lets the later of two records with one id in a batch win', async () => {
    await store.upsert('people', [person(1, [email('a@x.com')]), person(1, [email('b@x.com')], ',"v":2')]);
    expect(await store.count('people')).toBe(1);
    expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual([]);
    expect(await store.findIds('people', 'work_email', 'b@x.com', 10)).toEqual(['fp000000000001']);
  });

  it('says how many records of a batch were inserted, how many replaced one, and how many were unchanged', async () => {
    expect(await store.upsert('people', [person(1, []), person(2, [email('b@x.com')])])).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    // A record whose content is on file is unchanged: neither rewritten nor logged.
    expect(await store.upsert('people', [person(2, [email('b@x.com')]), person(3, [])])).toEqual({
      inserted: 1,
      updated: 0,
      unchanged: 1,
    });
    expect(await store.upsert('people', [person(1, [], ',"v":2'), person(2, [])])).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    expect(await store.findIds('people', 'work_email', 'b@x.com', 10)).toEqual([]);
    expect(await store.upsert('companies', [])).toEqual({ inserted: 0, updated: 0, unchanged: 0 });
    expect(await store.count('people')).toBe(3);
  });

  it('counts an id repeated in a batch once as inserted, its repeats against the one before', async () => {
    await store.upsert('people', [person(1, [])]);
    const batch = [person(2, []), person(1, [], ',"v":2'), person(2, [], ',"v":2'), person(2, [], ',"v":3')];
    expect(await store.upsert('people', batch)).toEqual({ inserted: 1, updated: 3, unchanged: 0 });
    expect(await store.count('people')).toBe(2);
    expect((await store.getRecord('people', 'fp000000000002'))?.body).toBe('{"id":"fp000000000002","v":3}');
  });

  it('counts a load into an empty entity (a bulk load where the backend has one) the same way', async () => {
    const bulk = await store.beginBulkLoad?.('people');
    const write = (records: RecordToStore[]) =>
      bulk ? bulk.upsert(records) : store.upsert('people', records);
    try {
      // More than one multi-row statement's worth, with a repeat inside one statement and across them.
      const first = Array.from({ length: 120 }, (_, n) => person(n, [email(`p${n}@x.com`)]));
      first.splice(10, 0, person(3, [email('p3@x.com')], ',"v":2'));
      first.push(person(7, [email('p7@x.com')], ',"v":2'));
      expect(await write(first)).toEqual({ inserted: 120, updated: 2, unchanged: 0 });
      expect(await write([person(119, []), person(200, [])])).toEqual({
        inserted: 1,
        updated: 0,
        unchanged: 1,
      });
    } finally {
      await bulk?.finish();
    }
    expect(await store.count('people')).toBe(121);
    expect((await store.getRecord('people', 'fp000000000003'))?.body).toBe('{"id":"fp000000000003","v":2}');
    expect(await store.findIds('people', 'work_email', 'p7@x.com', 10)).toEqual(['fp000000000007']);
  });

  it('returns every record sharing an identifier in id order, up to the limit', async () => {
    const shared = email('info@acme.com');
    await store.upsert('people', [person(3, [shared]), person(1, [shared]), person(2, [shared])]);
    expect(await store.findIds('people', 'work_email', 'info@acme.com', 10)).toEqual([
      'fp000000000001',
      'fp000000000002',
      'fp000000000003',
    ]);
    expect(await store.findIds('people', 'work_email', 'info@acme.com', 2)).toEqual([
      'fp000000000001',
      'fp000000000002',
    ]);
  });

  it('deletes records with their identifiers and counts only those that existed', async () => {
    await store.upsert('people', [person(1, [email('a@x.com')]), person(2, [email('b@x.com')])]);
    expect(await store.delete('people', ['fp000000000001', 'fp000000000009'])).toBe(1);
    expect(await store.getRecord('people', 'fp000000000001')).toBeUndefined();
    expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual([]);
    expect(await store.findIds('people', 'work_email', 'b@x.com', 10)).toEqual(['fp000000000002']);
    expect(await store.count('people')).toBe(1);
    expect(await store.delete('people', ['fp000000000001'])).toBe(0);
  });

  it('exports every body in id order and counts records per entity', async () => {
    const records = [5, 1, 4, 2, 3].map((n) => person(n, []));
    await store.upsert('people', records);
    const sorted = records.map((r) => r.body).sort();
    expect(await collect(store.exportBodies('people'))).toEqual(sorted);
    expect(await store.count('people')).toBe(5);
    expect(await store.count('companies')).toBe(0);
    expect(await collect(store.exportBodies('companies'))).toEqual([]);
  });

  it('exports more records than fit in one page', async () => {
    const records = Array.from({ length: 2500 }, (_, n) => person(n, []));
    await store.upsert('people', records);
    expect(await collect(store.exportBodies('people'))).toEqual(records.map((r) => r.body));
  });

  it('lists every id in id order, by pages', async () => {
    const records = Array.from({ length: 10_050 }, (_, n) => person(10_050 - n, []));
    await store.upsert('people', records);
    const pages: string[][] = [];
    for await (const page of store.exportIds('people')) pages.push(page);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(records.map((r) => r.id).sort());
    for await (const page of store.exportIds('companies')) expect(page).toEqual([]);
  });

  it('lists every stored etag, by pages, as the records now hold them', async () => {
    const records = Array.from({ length: 10_050 }, (_, n) => person(n, []));
    await store.upsert('people', records);
    await store.upsert('people', [person(7, [], ',"v":2')]);
    await store.delete('people', [records[8]!.id]);
    const pages: string[][] = [];
    for await (const page of store.exportEtags('people')) pages.push(page);
    expect(pages.length).toBeGreaterThan(1);
    const expected = records.filter((_, n) => n !== 8).map((r, n) => (n === 7 ? person(7, [], ',"v":2') : r));
    expect(pages.flat().sort()).toEqual(expected.map((r) => r.etag).sort());
    for await (const page of store.exportEtags('companies')) expect(page).toEqual([]);
  });

  it('keeps a batch that fails part-way wholly out', async () => {
    await store.upsert('people', [person(1, [email('a@x.com')])]);
    const broken = { ...person(2, []), id: null } as unknown as RecordToStore;
    const batch = [person(1, [email('changed@x.com')], ',"v":2'), broken, person(3, [email('c@x.com')])];
    await expect(store.upsert('people', batch)).rejects.toThrow();
    expect(await store.count('people')).toBe(1);
    expect((await store.getRecord('people', 'fp000000000001'))?.body).toBe('{"id":"fp000000000001"}');
    expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual(['fp000000000001']);
    expect(await store.findIds('people', 'work_email', 'changed@x.com', 10)).toEqual([]);
    expect(await store.findIds('people', 'work_email', 'c@x.com', 10)).toEqual([]);
  });

  it('accepts an empty batch', async () => {
    await store.upsert('companies', []);
    expect(await store.count('companies')).toBe(0);
  });
}
