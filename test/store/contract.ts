// The behaviour every Store backend promises; each backend's test file runs this one suite.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ApiKey,
  AuditEntry,
  Identifier,
  RecordToStore,
  Store,
  UsageRow,
} from '../../src/store/store.js';
import { hashedEmailContract } from './contract-hashed-emails.js';
import { nameMatchContract } from './contract-name-match.js';
import { searchContract } from './search-contract.js';

const person = (n: number, identifiers: Identifier[], extra = ''): RecordToStore => {
  const id = `fp${String(n).padStart(12, '0')}`;
  return { id, body: `{"id":"${id}"${extra}}`, etag: `"etag-${id}${extra.length}"`, identifiers };
};
const email = (value: string): Identifier => ({ kind: 'work_email', value });

const key = (id: string, created_at: string, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name: `key ${id}`,
  hash: `hash-${id}`,
  scopes: ['people:read'],
  rate: 50,
  quota: null,
  created_at,
  expires_at: null,
  revoked_at: null,
  ...overrides,
});

const usage = (key_id: string, day: string, counts: Partial<UsageRow> = {}): UsageRow => ({
  key_id,
  day,
  operation: 'people',
  requests: 0,
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  rejected: 0,
  ...counts,
});

const entry = (at: string, key_id: string, matched: string[] = [], status = 200): AuditEntry => ({
  at,
  key_id,
  operation: 'people',
  params: ['work_email', 'ln_url'],
  matched,
  status,
});

async function collect(bodies: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const body of bodies) out.push(body);
  return out;
}

/** Runs the Store contract against a backend; `open` must return an empty store each time. */
export function describeStoreContract(
  name: string,
  open: () => Promise<Store>,
  cleanup?: () => Promise<void>,
) {
  describe(`${name} store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.();
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

    it('stores and serves a record whose words and identifiers are longer than any index key', async () => {
      const long = '€'.repeat(1400); // 4,200 bytes: past LMDB's keys and PostgreSQL's B-tree entries
      const id = 'fp000000000001';
      const body = JSON.stringify({ id, position: `Head of ${long}`, current_company: { id: long } });
      // Identifiers as a store written before they were bounded may hold them.
      const identifiers: Identifier[] = [email('jane@acme.com.au'), { kind: 'linkedin', value: long }];
      await store.upsert('people', [{ id, body, etag: '"long"', identifiers }]);
      expect(await store.getRecord('people', id)).toEqual({ id, body, etag: '"long"' });
      expect(await store.findIds('people', 'work_email', 'jane@acme.com.au', 10)).toEqual([id]);
      await store.findIds('people', 'linkedin', long, 10); // answers, whether it lists the id or not
      const page = await store.searchPeople({ filters: { position: ['head'] }, limit: 10 });
      expect(page.hits.map((hit) => hit.id)).toEqual([id]);
      await store.upsert('people', [{ id, body: `{"id":"${id}"}`, etag: '"short"', identifiers: [] }]);
      expect(await store.findIds('people', 'work_email', 'jane@acme.com.au', 10)).toEqual([]);
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
      const served = async (kind: Parameters<Store['findRecords']>[1], value: string, limit: number) =>
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

    it('lets the later of two records with one id in a batch win', async () => {
      await store.upsert('people', [person(1, [email('a@x.com')]), person(1, [email('b@x.com')], ',"v":2')]);
      expect(await store.count('people')).toBe(1);
      expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual([]);
      expect(await store.findIds('people', 'work_email', 'b@x.com', 10)).toEqual(['fp000000000001']);
    });

    it('says how many records of a batch were inserted and how many replaced one', async () => {
      expect(await store.upsert('people', [person(1, []), person(2, [email('b@x.com')])])).toEqual({
        inserted: 2,
        updated: 0,
      });
      // An unchanged record counts as updated too: its id was on file.
      expect(await store.upsert('people', [person(2, [email('b@x.com')]), person(3, [])])).toEqual({
        inserted: 1,
        updated: 1,
      });
      expect(await store.upsert('people', [person(1, [], ',"v":2'), person(2, [])])).toEqual({
        inserted: 0,
        updated: 2,
      });
      expect(await store.upsert('companies', [])).toEqual({ inserted: 0, updated: 0 });
      expect(await store.count('people')).toBe(3);
    });

    it('counts an id repeated in a batch once as inserted, its repeats as updated', async () => {
      await store.upsert('people', [person(1, [])]);
      const batch = [
        person(2, []),
        person(1, [], ',"v":2'),
        person(2, [], ',"v":2'),
        person(2, [], ',"v":3'),
      ];
      expect(await store.upsert('people', batch)).toEqual({ inserted: 1, updated: 3 });
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
        expect(await write(first)).toEqual({ inserted: 120, updated: 2 });
        expect(await write([person(119, []), person(200, [])])).toEqual({ inserted: 1, updated: 1 });
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

    it('creates, finds, lists and revokes keys', async () => {
      const second = key('k2', '2025-01-02T00:00:00.000Z', {
        scopes: ['people:read', 'company:read'],
        rate: 7,
        quota: 1000,
        expires_at: '2026-01-01T00:00:00.000Z',
      });
      await store.createKey(second);
      await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
      const rotation = { previous_hash: null, previous_expires_at: null };
      expect(await store.findKeyByHash('hash-k2')).toEqual({ ...second, ...rotation });
      expect(await store.getKey('k2')).toEqual({ ...second, ...rotation });
      expect(await store.getKey('nope')).toBeUndefined();
      expect(await store.findKeyByHash('hash-nope')).toBeUndefined();
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['k1', 'k2']);

      expect(await store.revokeKey('k2', new Date('2025-03-01T00:00:00.000Z'))).toBe(true);
      expect(await store.revokeKey('k2', new Date('2025-04-01T00:00:00.000Z'))).toBe(false);
      expect(await store.revokeKey('missing', new Date())).toBe(false);
      expect((await store.findKeyByHash('hash-k2'))?.revoked_at).toBe('2025-03-01T00:00:00.000Z');
    });

    it("updates a key's settings in place: only those given, seen by the next lookup by hash", async () => {
      const original = key('k1', '2025-01-01T00:00:00.000Z', { quota: 10 });
      await store.createKey(original);
      await store.createKey(key('k2', '2025-01-02T00:00:00.000Z'));
      const rotation = { previous_hash: null, previous_expires_at: null };
      expect(await store.findKeyByHash('hash-k1')).toEqual({ ...original, ...rotation });

      const changes = { rate: 7, scopes: ['people:read', 'company:read'] as ApiKey['scopes'] };
      expect(await store.updateKey('k1', changes)).toBe(true);
      const updated = { ...original, ...rotation, ...changes };
      expect(await store.findKeyByHash('hash-k1')).toEqual(updated);
      expect(await store.getKey('k1')).toEqual(updated);

      const expiry = { name: 'renamed', quota: null, expires_at: '2027-01-31T00:00:00.000Z' };
      expect(await store.updateKey('k1', expiry)).toBe(true);
      expect(await store.findKeyByHash('hash-k1')).toEqual({ ...updated, ...expiry });
      expect(await store.updateKey('k1', { quota: 500, expires_at: null })).toBe(true);
      expect(await store.getKey('k1')).toEqual({ ...updated, ...expiry, quota: 500, expires_at: null });
      expect(await store.getKey('k2')).toEqual({ ...key('k2', '2025-01-02T00:00:00.000Z'), ...rotation });

      expect(await store.updateKey('missing', { rate: 1 })).toBe(false);
      await store.revokeKey('k2', new Date('2025-03-01T00:00:00.000Z'));
      expect(await store.updateKey('k2', { rate: 1 })).toBe(false);
      expect((await store.getKey('k2'))?.rate).toBe(50);
    });

    it('refuses a second key with the same hash', async () => {
      await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
      await expect(
        store.createKey(key('k2', '2025-01-01T00:00:00.000Z', { hash: 'hash-k1' })),
      ).rejects.toThrow();
    });

    it('accumulates quota use per key and period', async () => {
      expect(await store.quotaUsed('k1', '2025-01')).toBe(0);
      await store.addQuotaUse('2025-01', new Map([['k1', 2]]));
      await store.addQuotaUse(
        '2025-01',
        new Map([
          ['k1', 3],
          ['k2', 1],
        ]),
      );
      await store.addQuotaUse('2025-02', new Map([['k1', 10]]));
      expect(await store.quotaUsed('k1', '2025-01')).toBe(5);
      expect(await store.quotaUsed('k2', '2025-01')).toBe(1);
      expect(await store.quotaUsed('k1', '2025-02')).toBe(10);
    });

    it('rotates a key: a new hash, the old one kept as previous until the grace ends', async () => {
      await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
      const until = new Date('2025-01-02T00:00:00.000Z');
      expect(await store.rotateKey('k1', 'hash-new', until)).toBe(true);
      const rotated = await store.findKeyByHash('hash-new');
      expect(rotated).toMatchObject({
        id: 'k1',
        hash: 'hash-new',
        previous_hash: 'hash-k1',
        previous_expires_at: '2025-01-02T00:00:00.000Z',
      });
      expect(await store.findKeyByHash('hash-k1')).toEqual(rotated);

      expect(await store.rotateKey('k1', 'hash-newer', until)).toBe(true);
      const twice = await store.findKeyByHash('hash-newer');
      expect(twice).toMatchObject({ id: 'k1', hash: 'hash-newer', previous_hash: 'hash-new' });
      // Every token a key ever had still names it, so that it answers as rotated out, not as unknown.
      expect(await store.findKeyByHash('hash-new')).toEqual(twice);
      expect(await store.findKeyByHash('hash-k1')).toEqual(twice);
      expect(await store.rotateKey('k1', 'hash-newest', until)).toBe(true);
      for (const old of ['hash-k1', 'hash-new', 'hash-newer']) {
        expect((await store.findKeyByHash(old))?.hash).toBe('hash-newest');
      }
      expect(await store.findKeyByHash('hash-unknown')).toBeUndefined();
      expect(await store.rotateKey('missing', 'hash-x', until)).toBe(false);
      await store.revokeKey('k1', new Date());
      expect(await store.rotateKey('k1', 'hash-x', until)).toBe(false);
      expect((await store.findKeyByHash('hash-k1'))?.revoked_at).not.toBeNull();
    });

    it('adds usage per key, day and operation, and reads it back in day order', async () => {
      await store.addUsage([
        usage('k1', '2025-01-02', { requests: 3, matched: 2, rejected: 1 }),
        usage('k1', '2025-01-01', { requests: 1, not_found: 1 }),
        usage('k2', '2025-01-01', { operation: 'company', requests: 1, ambiguous: 1 }),
      ]);
      await store.addUsage([usage('k1', '2025-01-02', { requests: 2, matched: 2 })]);
      await store.addUsage([]);
      expect(await store.usage({ keyId: 'k1' })).toEqual([
        usage('k1', '2025-01-01', { requests: 1, not_found: 1 }),
        usage('k1', '2025-01-02', { requests: 5, matched: 4, rejected: 1 }),
      ]);
      expect(await store.usage({ since: '2025-01-02' })).toEqual([
        usage('k1', '2025-01-02', { requests: 5, matched: 4, rejected: 1 }),
      ]);
      expect((await store.usage({})).map((r) => `${r.day} ${r.key_id} ${r.operation}`)).toEqual([
        '2025-01-01 k1 people',
        '2025-01-01 k2 company',
        '2025-01-02 k1 people',
      ]);
    });

    it('keeps audit entries, finds them by key or by a record they disclosed, and prunes old ones', async () => {
      await store.addAudit([
        entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
        entry('2025-01-02T10:00:00.000Z', 'k2', ['fp000000000001', 'fp000000000002'], 409),
        { ...entry('2025-01-03T10:00:00.000Z', 'k1', [], 400), params: [] },
      ]);
      await store.addAudit([]);
      const byRecord = await store.audit({ recordId: 'fp000000000001' });
      expect(byRecord).toEqual([
        entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
        entry('2025-01-02T10:00:00.000Z', 'k2', ['fp000000000001', 'fp000000000002'], 409),
      ]);
      expect((await store.audit({ recordId: 'fp000000000001', since: '2025-01-02' })).length).toBe(1);
      expect((await store.audit({ recordId: 'fp000000000001', keyId: 'k2' })).length).toBe(1);
      expect(await store.audit({ keyId: 'k1' })).toEqual([
        entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
        { ...entry('2025-01-03T10:00:00.000Z', 'k1', [], 400), params: [] },
      ]);
      expect((await store.audit({ limit: 2 })).map((e) => e.status)).toEqual([200, 409]);

      expect(await store.pruneAudit(new Date('2025-01-02T12:00:00.000Z'))).toBe(2);
      expect(await store.audit({ recordId: 'fp000000000001' })).toEqual([]);
      expect((await store.audit({})).map((e) => e.at)).toEqual(['2025-01-03T10:00:00.000Z']);
    });

    it('lists audit entries newest first on request, and a limit then keeps the newest', async () => {
      const same = '2025-01-02T10:00:00.000Z';
      await store.addAudit([
        entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
        entry(same, 'k1', ['fp000000000001'], 200),
        entry(same, 'k1', ['fp000000000001'], 404),
        entry('2025-01-03T10:00:00.000Z', 'k2', ['fp000000000001'], 409),
      ]);
      const statuses = (entries: AuditEntry[]) => entries.map((e) => `${e.at.slice(8, 10)} ${e.status}`);
      const newest = ['03 409', '02 404', '02 200', '01 200'];
      expect(statuses(await store.audit({ newestFirst: true }))).toEqual(newest);
      expect(statuses(await store.audit({ recordId: 'fp000000000001', newestFirst: true }))).toEqual(newest);
      expect(statuses(await store.audit({ keyId: 'k1', newestFirst: true }))).toEqual(newest.slice(1));
      expect(statuses(await store.audit({ keyId: 'k1', newestFirst: true, limit: 2 }))).toEqual([
        '02 404',
        '02 200',
      ]);
      expect(
        statuses(await store.audit({ recordId: 'fp000000000001', newestFirst: true, limit: 1 })),
      ).toEqual(['03 409']);
      expect(
        statuses(await store.audit({ recordId: 'fp000000000001', since: '2025-01-02', newestFirst: true })),
      ).toEqual(newest.slice(0, 3));
      expect(statuses(await store.audit({ keyId: 'k1', newestFirst: false }))).toEqual([
        '01 200',
        '02 200',
        '02 404',
      ]);
    });

    it('finds a record in an audit log of many thousand entries, since a time, and prunes by time', async () => {
      // 40,000 entries a minute apart from 2025-01-01: more than two of SQLite's index buckets.
      const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
      const watched = (i: number) => i % 10_000 === 5;
      const all = Array.from({ length: 40_000 }, (_, i) =>
        entry(at(i), i % 2 ? 'k1' : 'k2', watched(i) ? ['fp000000000007', `fp${i}`] : [`fp${i}`]),
      );
      for (let i = 0; i < all.length; i += 5_000) await store.addAudit(all.slice(i, i + 5_000));
      const times = (entries: AuditEntry[]) => entries.map((e) => e.at);
      const expected = all.filter((_, i) => watched(i)).map((e) => e.at);
      expect(times(await store.audit({ recordId: 'fp000000000007' }))).toEqual(expected);
      expect(times(await store.audit({ recordId: 'fp39999' }))).toEqual([at(39_999)]);
      expect(times(await store.audit({ recordId: 'fp000000000007', since: at(20_005) }))).toEqual(
        expected.slice(2),
      );
      expect(times(await store.audit({ recordId: 'fp000000000007', since: at(20_006) }))).toEqual(
        expected.slice(3),
      );
      expect(times(await store.audit({ recordId: 'fp000000000007', keyId: 'k1' }))).toEqual([
        at(5),
        at(10_005),
        at(20_005),
        at(30_005),
      ]);
      expect(times(await store.audit({ recordId: 'fp000000000007', newestFirst: true, limit: 2 }))).toEqual([
        at(30_005),
        at(20_005),
      ]);
      expect(await store.pruneAudit(new Date(at(25_000)))).toBe(25_000);
      expect(times(await store.audit({ recordId: 'fp000000000007' }))).toEqual(expected.slice(3));
      expect(await store.audit({ recordId: 'fp24999' })).toEqual([]);
      expect(times(await store.audit({ recordId: 'fp25000' }))).toEqual([at(25_000)]);
      expect((await store.audit({ since: at(0) })).length).toBe(15_000);
    });

    it('suppresses: deletes the records, remembers the hashes, and forgets a whole suppression', async () => {
      await store.upsert('people', [person(1, [email('a@x.com')]), person(2, [email('b@x.com')])]);
      expect(await store.suppress('people', ['fp000000000001', 'fp000000000009'], ['h1', 'h2'])).toBe(1);
      expect(await store.getRecord('people', 'fp000000000001')).toBeUndefined();
      expect(await store.findIds('people', 'work_email', 'a@x.com', 10)).toEqual([]);
      expect(await store.count('people')).toBe(1);
      await store.suppress('people', [], ['h2', 'h3']);
      expect(await store.suppressedHashes('people')).toEqual(new Set(['h1', 'h2', 'h3']));
      expect(await store.suppressedHashes('companies')).toEqual(new Set());

      expect(await store.unsuppress('companies', 'h1')).toBe(0);
      expect(await store.unsuppress('people', 'h1')).toBe(2);
      expect(await store.suppressedHashes('people')).toEqual(new Set(['h2', 'h3']));
      expect(await store.unsuppress('people', 'h2')).toBe(2);
      expect(await store.suppressedHashes('people')).toEqual(new Set());
    });

    it('folds a run of the accounting journal once, whatever offset a late folder believes in', async () => {
      const entry = (n: number) => ({
        at: `2026-11-23T10:00:0${n}.000Z`,
        key_id: 'kj',
        operation: 'people' as const,
        params: 'id',
        matched: `fp${n}`,
        status: 200,
      });
      const run = (n: number) => ({
        audit: [entry(n)],
        usage: [
          {
            key_id: 'kj',
            day: '2026-11-23',
            operation: 'people' as const,
            requests: 1,
            matched: 1,
            not_found: 0,
            ambiguous: 0,
            rejected: 0,
          },
        ],
        quota: new Map([['2026-11', new Map([['kj', 1]])]]),
      });
      expect(await store.journalOffset('seg-1')).toBe(0);
      expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(true);
      expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(false); // another folder got there first
      expect(await store.foldJournal('seg-1', 100, 180, run(2))).toBe(true);
      expect(await store.journalOffset('seg-1')).toBe(180);
      expect((await store.audit({ keyId: 'kj' })).map((e) => e.matched)).toEqual([['fp1'], ['fp2']]);
      expect(await store.quotaUsed('kj', '2026-11')).toBe(2);
      expect((await store.usage({ keyId: 'kj' }))[0]).toMatchObject({ requests: 2, matched: 2 });
      await store.forgetJournal('seg-1');
      expect(await store.journalOffset('seg-1')).toBeLessThan(0);
      // A folder that read the segment before its file went cannot fold any of it again.
      expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(false);
      expect(await store.foldJournal('seg-1', 180, 200, run(3))).toBe(false);
      await store.forgetJournal('seg-never-folded');
      expect(await store.foldJournal('seg-never-folded', 0, 100, run(3))).toBe(false);
      expect((await store.audit({ keyId: 'kj' })).map((e) => e.matched)).toEqual([['fp1'], ['fp2']]);
    });

    it('drops the marks of segments forgotten more than a day ago, when it forgets another', async () => {
      const now = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: now - 2 * 86_400_000 });
      try {
        await store.forgetJournal('seg-old');
        vi.setSystemTime(now - 3_600_000);
        await store.forgetJournal('seg-recent');
      } finally {
        vi.useRealTimers();
      }
      await store.forgetJournal('seg-now');
      expect(await store.journalOffset('seg-old')).toBe(0);
      expect(await store.journalOffset('seg-recent')).toBeLessThan(0);
      expect(await store.journalOffset('seg-now')).toBeLessThan(0);
    });

    it('answers a ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('search', () => searchContract(() => store));
  });
}
