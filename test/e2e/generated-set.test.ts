import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { writeDataset } from '../../src/generate/index.js';
import { importFile } from '../../src/ingest/index.js';
import type { Company } from '../../src/schemas/company.js';
import type { Person } from '../../src/schemas/person.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-e2e-'));
let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let auth: string;
let people: Person[];
let companies: Company[];

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  const { files } = await writeDataset({ companies: 200, people: 1000, seed: 11, out: dir });
  store = openSqliteStore(join(dir, 'enrich.db'));
  const c = await importFile(store, 'companies', files[0]!);
  const p = await importFile(store, 'people', files[1]!);
  expect([c.rejected, p.rejected]).toEqual([0, 0]);
  companies = await lines(files[0]!);
  people = await lines(files[1]!);
  app = await buildApp({ store });
  auth = `Bearer ${(await issueKey(store, { name: 'e2e', rate: 1_000_000 })).token}`;
}, 120_000);

afterAll(async () => {
  await app.close();
  await store.close();
});

/** Looks up `url` and checks it finds `id`: alone (200), or among the several records sharing the identifier (409). */
async function expectFinds(url: string, id: string) {
  const res = await app.inject({ url, headers: { authorization: auth } });
  if (res.statusCode === 409) {
    expect(Object.values(res.json().matches).flat()).toContain(id);
    return 'shared';
  }
  expect(res.statusCode, `${url} → ${res.body}`).toBe(200);
  expect(res.json().id).toBe(id);
  return 'unique';
}

const q = (value: string) => encodeURIComponent(value);

describe('a generated data set, imported', () => {
  it('finds every person by each of their identifiers', async () => {
    let shared = 0;
    for (const person of people) {
      await expectFinds(`/people?id=${q(person.id)}`, person.id);
      if (person.linkedin) {
        await expectFinds(`/people?ln_url=${q(person.linkedin)}`, person.id);
        await expectFinds(`/people?ln_slug=${q(person.linkedin.split('/in/')[1]!)}`, person.id);
      }
      for (const email of person.emails?.work ?? []) {
        if ((await expectFinds(`/people?work_email=${q(email!.value!)}`, person.id)) === 'shared') shared++;
      }
      for (const email of person.emails?.personal ?? []) {
        await expectFinds(`/people?personal_email=${q(email!.value!.toUpperCase())}`, person.id);
      }
    }
    // The generator gives a few people a shared inbox: those answer 409, every other identifier 200.
    expect(shared).toBeGreaterThan(0);
  }, 120_000);

  it('finds every company by each of its identifiers', async () => {
    for (const company of companies) {
      await expectFinds(`/company?id=${q(company.id)}`, company.id);
      if (company.linkedin) await expectFinds(`/company?ln_slug=${q(company.linkedin)}`, company.id);
      if (company.linkedin) {
        await expectFinds(
          `/company?ln_url=${q(`https://www.linkedin.com/company/${company.linkedin}/`)}`,
          company.id,
        );
      }
      if (company.fqdn) await expectFinds(`/company?fqdn=${q(company.fqdn.toUpperCase())}`, company.id);
      if (company.website) await expectFinds(`/company?website=${q(company.website)}`, company.id);
      if (company.industry_codes?.abn)
        await expectFinds(`/company?abn=${q(company.industry_codes.abn)}`, company.id);
    }
  }, 120_000);
});
