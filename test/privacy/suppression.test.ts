// Suppression: one hash per identifier however it is typed, records deleted, and imports blocked for good.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { importFile } from '../../src/ingest/import.js';
import {
  applySuppression,
  liftSuppression,
  planSuppression,
  suppressionKey,
} from '../../src/privacy/suppress.js';
import { recordHashes, SuppressionFilter, suppressionHash } from '../../src/privacy/suppression.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { COMPANIES, PEOPLE, seed } from '../helpers/app.js';

/** `printf %s ADDRESS | sha256sum` */
const sha256 = (address: string) => createHash('sha256').update(address).digest('hex');

describe('suppression hashes', () => {
  it('are the same for every spelling a lookup accepts', () => {
    const typed = suppressionKey('people', 'ln_url', 'https://au.linkedin.com/in/Jane-Citizen/?trk=x');
    expect(suppressionHash(typed.kind, typed.value)).toBe(suppressionHash('linkedin', 'jane-citizen'));
    const email = suppressionKey('people', 'work_email', '  Jane.Citizen@ACME.com.au ');
    expect(suppressionHash(email.kind, email.value)).toBe(
      suppressionHash('work_email', 'jane.citizen@acme.com.au'),
    );
  });

  it('differ by kind, so a personal e-mail does not block the same address as a work e-mail', () => {
    expect(suppressionHash('work_email', 'a@b.co')).not.toBe(suppressionHash('personal_email', 'a@b.co'));
  });

  it('refuse a value a lookup would refuse', () => {
    expect(() => suppressionKey('companies', 'abn', '12 345 678 901')).toThrow(/abn/);
    expect(() => suppressionKey('people', 'fqdn', 'acme.com.au')).toThrow(/does not identify people/);
  });

  it('match a record by its id or any identifier it carries', () => {
    const record = { id: 'fp1', identifiers: [{ kind: 'work_email' as const, value: 'a@b.co' }] };
    const byEmail = new SuppressionFilter(new Set([suppressionHash('work_email', 'a@b.co')]));
    const byId = new SuppressionFilter(new Set(recordHashes({ id: 'fp1', identifiers: [] })));
    expect(byEmail.isSuppressed(record)).toBe(true);
    expect(byId.isSuppressed(record)).toBe(true);
    expect(new SuppressionFilter(new Set(['other'])).isSuppressed(record)).toBe(false);
  });
});

describe('suppressing a person', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-suppress-'));
    store = openSqliteStore(join(dir, 'enrich.db'));
    await seed(store, 'people', PEOPLE);
    await seed(store, 'companies', COMPANIES);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const suppress = async (param: string, value: string) => {
    const plan = await planSuppression(store, 'people', suppressionKey('people', param, value));
    return { plan, deleted: await applySuppression(store, 'people', plan) };
  };

  it('survives a re-import of the record: the import skips and counts it', async () => {
    const { deleted } = await suppress('personal_email', 'JANE@gmail.com');
    expect(deleted).toBe(1);
    expect(await store.getRecord('people', 'fp000000000001')).toBeUndefined();
    const file = join(dir, 'people.ndjson');
    writeFileSync(file, `${PEOPLE.map((p) => JSON.stringify(p)).join('\n')}\n`);
    for (const worker of [false, true]) {
      const summary = await importFile(store, 'people', file, { worker });
      expect(summary).toMatchObject({ read: 3, imported: 2, rejected: 0, suppressed: 1 });
      expect(await store.getRecord('people', 'fp000000000001')).toBeUndefined();
      expect(await store.findIds('people', 'linkedin', 'jane-citizen', 5)).toEqual([]);
    }
  });

  it('answers a lookup by any of its identifiers 404, as for an unknown one, and never lists it in a 409', async () => {
    await suppress('ln_url', 'linkedin.com/in/jane-citizen');
    const app = await buildApp({ store });
    const { token } = await issueKey(store, { name: 'test' });
    const get = (query: string) =>
      app.inject({ url: `/people?${query}`, headers: { authorization: `Bearer ${token}` } });
    const unknown = await get('id=fp000000000777');
    for (const query of ['id=fp000000000001', 'ln_slug=jane-citizen', 'personal_email=jane%40gmail.com']) {
      const res = await get(query);
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe(unknown.json().detail);
    }
    const shared = await get('work_email=info%40acme.com.au');
    expect(shared.statusCode).toBe(200);
    expect(shared.json().id).toBe('fp000000000002');
    await app.close();
  });

  it('blocks a changed record that still carries one suppressed identifier', async () => {
    await suppress('id', 'fp000000000001');
    const file = join(dir, 'people.ndjson');
    const renumbered = { ...PEOPLE[0], id: 'fp000000000099', emails: undefined };
    writeFileSync(file, `${JSON.stringify(renumbered)}\n`);
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({ suppressed: 1 });
  });

  it('leaves identifiers other records still carry (a shared inbox) unblocked', async () => {
    const { plan } = await suppress('id', 'fp000000000001');
    expect(plan.hashes).toContain(suppressionHash('work_email', 'jane.citizen@acme.com.au'));
    expect(plan.hashes).not.toContain(suppressionHash('work_email', 'info@acme.com.au'));
    expect(await store.findIds('people', 'work_email', 'info@acme.com.au', 5)).toEqual(['fp000000000002']);
  });

  it('suppresses every record an identifier matches', async () => {
    const { plan, deleted } = await suppress('work_email', 'info@acme.com.au');
    expect(plan.ids).toEqual(['fp000000000001', 'fp000000000002']);
    expect(deleted).toBe(2);
  });

  it('blocks an identifier that matched nothing, so its first import is skipped', async () => {
    const { deleted } = await suppress('work_email', 'nobody@nowhere.com');
    expect(deleted).toBe(0);
    const file = join(dir, 'people.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'fp000000000050', emails: { work: [{ value: 'Nobody@nowhere.com' }] } })}\n`,
    );
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({
      imported: 0,
      suppressed: 1,
    });
  });

  it("deletes by an address's hash what the address finds, and blocks the record's import by either", async () => {
    const { plan, deleted } = await suppress('work_email_sha256', sha256('jose@acme.com.au'));
    expect(deleted).toBe(1);
    expect(plan.ids).toEqual(['fp000000000002']);
    expect(plan.hashes).toContain(suppressionHash('work_email', 'jose@acme.com.au'));
    expect(await store.findIds('people', 'work_email', 'jose@acme.com.au', 5)).toEqual([]);
    const file = join(dir, 'people.ndjson');
    writeFileSync(file, `${JSON.stringify(PEOPLE[1])}\n`);
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({ suppressed: 1 });
  });

  it("leaves nothing a suppressed address's hash can find", async () => {
    await suppress('work_email', 'Jane.Citizen@acme.com.au');
    const app = await buildApp({ store });
    const { token } = await issueKey(store, { name: 'test' });
    const hash = sha256('jane.citizen@acme.com.au');
    const res = await app.inject({
      url: `/people?work_email_sha256=${hash}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(404);
    expect(await store.findIds('people', 'work_email_sha256', hash, 5)).toEqual([]);
    await app.close();
  });

  it('lifts an address suppressed before any import by its hash, and a hash by its address', async () => {
    await suppress('work_email', 'nobody@nowhere.com');
    const byHash = suppressionKey('people', 'work_email_sha256', sha256('nobody@nowhere.com'));
    expect(await liftSuppression(store, 'people', byHash)).toBeGreaterThan(0);
    expect(await store.suppressedHashes('people')).toEqual(new Set());
    await suppress('personal_email_sha256', sha256('someone@home.net'));
    const file = join(dir, 'people.ndjson');
    const someone = { id: 'fp000000000060', emails: { personal: [{ value: 'Someone@home.net' }] } };
    writeFileSync(file, `${JSON.stringify(someone)}\n`);
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({ suppressed: 1 });
    const byAddress = suppressionKey('people', 'personal_email', 'someone@home.net');
    expect(await liftSuppression(store, 'people', byAddress)).toBeGreaterThan(0);
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({ imported: 1 });
  });

  it('is undone by unsuppress with any of the identifiers it blocked', async () => {
    await suppress('personal_email', 'jane@gmail.com');
    const removed = await liftSuppression(
      store,
      'people',
      suppressionKey('people', 'ln_slug', 'jane-citizen'),
    );
    expect(removed).toBeGreaterThan(1);
    expect(await store.suppressedHashes('people')).toEqual(new Set());
    const file = join(dir, 'people.ndjson');
    writeFileSync(file, `${JSON.stringify(PEOPLE[0])}\n`);
    expect(await importFile(store, 'people', file, { worker: false })).toMatchObject({
      imported: 1,
      suppressed: 0,
    });
  });
});
