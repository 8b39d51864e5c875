// Both stores answer every search alike on one generated data set (SQLite bulk-loaded, PostgreSQL upserted),
// and as a plain filter over the records, written here without the stores' SQL, would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCompanies, generatePeople } from '../../src/generate/index.js';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import type { RecordToStore } from '../../src/store/records.js';
import type { CompanyFilters, PeopleFilters, SearchQuery } from '../../src/store/search.js';
import {
  type CompanyFacts,
  companyFacts,
  type PersonFacts,
  personFacts,
} from '../../src/store/search-facts.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import type { Entity } from '../../src/vocabulary/entities.js';
import { matchesWordStarts, wordScore } from '../../src/vocabulary/words.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

const COMPANIES = [...generateCompanies({ companies: 150, seed: 3 })];
const PEOPLE = [...generatePeople({ companies: 150, people: 3000, seed: 3 })];

const prepared = (entity: Entity, records: object[]) =>
  records.map((r) => {
    const line = prepareLine(entity, JSON.stringify(r));
    if (line instanceof Invalid) throw new Error(line.message);
    return line;
  });

let dir: string;
let database: TestDatabase;
let sqlite: Store;
let postgres: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'enrich-search-'));
  sqlite = openSqliteStore(join(dir, 'enrich.db'));
  database = await createTestDatabase();
  postgres = await openPostgresStore({ url: database.url });
  // People first and companies after, so that people take their company's country as it arrives.
  const bulk = await sqlite.beginBulkLoad!('people');
  await bulk!.upsert(prepared('people', PEOPLE));
  await bulk!.finish();
  await sqlite.upsert('companies', prepared('companies', COMPANIES));
  await postgres.upsert(
    'people',
    prepared('people', PEOPLE).map(({ facts: _, ...r }): RecordToStore => r),
  );
  await postgres.upsert('companies', prepared('companies', COMPANIES));
}, 120_000);

afterAll(async () => {
  await sqlite?.close();
  await postgres?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const people = PEOPLE.map((p) => ({ id: p.id, facts: personFacts(p as never) }));
const countries = new Map(COMPANIES.map((c) => [c.id, companyFacts(c as never).country]));
const companies = COMPANIES.map((c) => ({ id: c.id, facts: companyFacts(c as never) }));

/** A person's country as the specification words it: their location's, else their company's on file. */
function countryOf(f: PersonFacts): string | null {
  if (f.location_country) return f.location_country;
  const hq = f.company_id ? countries.get(f.company_id) : undefined;
  return hq === 'AU' || hq === 'NZ' ? hq : null;
}

const within = <T>(list: readonly T[] | undefined, value: T) => list === undefined || list.includes(value);

function personMatches(f: PersonFacts, filters: PeopleFilters, q: string[] | undefined): boolean {
  return (
    within(filters.companyIds, f.company_id!) &&
    within(filters.seniorities, f.seniority!) &&
    within(filters.departments, f.department!) &&
    within(filters.countries, countryOf(f)!) &&
    within(filters.states, f.state!) &&
    matchesWordStarts(f.position, filters.position ?? []) &&
    (filters.skills === undefined || filters.skills.some((s) => f.skill_keys.includes(`|${s}|`))) &&
    (filters.locations === undefined || filters.locations.some((w) => matchesWordStarts(f.location, w))) &&
    matchesWordStarts(f.name + f.position + f.headline + f.skills, q ?? [])
  );
}

const personRank = (f: PersonFacts, q: string[]) =>
  [f.name, f.position, f.headline, f.skills].reduce((sum, field) => sum + wordScore(field, q), 0);

function companyMatches(f: CompanyFacts, filters: CompanyFilters, q: string[] | undefined): boolean {
  const inKeys = (keys: string, values: string[] | undefined) =>
    values === undefined || values.some((v) => keys.includes(`|${v}|`));
  const years = filters.yearFounded;
  return (
    inKeys(f.industries, filters.industries) &&
    inKeys(f.states, filters.states) &&
    inKeys(f.technologies, filters.technologies) &&
    within(filters.sizes, f.size) &&
    within(filters.countries, f.country) &&
    within(filters.revenues, f.revenue) &&
    (years?.gte === undefined || (f.year_founded ?? -Infinity) >= years.gte) &&
    (years?.lte === undefined || (f.year_founded ?? Infinity) <= years.lte) &&
    matchesWordStarts(f.name + f.description + f.keywords, q ?? [])
  );
}

/** Ids in the order a search returns them: rank (with q) descending, then id in byte order. */
function expected<F>(rows: Array<{ id: string; rank: number }>, query: SearchQuery<F>) {
  const sorted = [...rows].sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const offset = query.start && 'offset' in query.start ? query.start.offset : 0;
  return {
    total: Math.min(rows.length, 10_000),
    hits: sorted.slice(offset, offset + query.limit).map((r) => [r.id, r.rank]),
  };
}

const answer = async (page: ReturnType<Store['searchPeople']>) => {
  const { total, hits } = await page;
  return { total: total.value, hits: hits.map((h) => [h.id, h.rank]) };
};

const pick = <T>(values: readonly T[]) =>
  fc.option(fc.subarray([...values], { minLength: 1, maxLength: 2 }), { nil: undefined });
const wordsOf = (field: keyof PersonFacts) =>
  [...new Set(people.flatMap((p) => String(p.facts[field]).trim().split(' ')).filter(Boolean))].slice(0, 60);
const prefixes = (words: string[]) => words.flatMap((w) => [w, w.slice(0, 3)]);
const someWords = (words: string[], most: number) =>
  fc.subarray(prefixes(words), { minLength: 1, maxLength: most });

/** One or two of the generated filters: more would rarely match anyone. */
const someOf = <T extends object>(all: fc.Arbitrary<T>) =>
  fc.tuple(all, fc.integer({ min: 1, max: 2 }), fc.nat()).map(([filters, count, shift]) => {
    const entries = Object.entries(filters).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.filter((_, i) => (i + shift) % entries.length < count)) as T;
  });

const peopleQuery = fc.record({
  filters: someOf(
    fc.record({
      companyIds: pick(PEOPLE.slice(0, 40).map((p) => p.current_company!.id!)),
      seniorities: pick([1, 2, 3, 4, 5, 6, 7]),
      departments: pick([1, 2, 5, 10, 14, 17]),
      countries: pick(['AU', 'NZ']),
      states: pick(['NSW', 'VIC', 'QLD', 'AUK', 'TAS']),
      position: someWords(wordsOf('position'), 2),
      skills: pick(['negotiation', 'b2b sales', 'leadership', 'react', 'xero']),
      locations: fc.array(someWords(wordsOf('location'), 2), { minLength: 1, maxLength: 2 }),
    }),
  ),
  q: fc.option(someWords([...wordsOf('name'), ...wordsOf('skills')], 1), { nil: undefined, freq: 3 }),
  start: fc.option(fc.record({ offset: fc.nat(40) }), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 30 }),
});

const companyRank = (f: CompanyFacts, q: string[]) =>
  [f.name, f.description, f.keywords].reduce((sum, field) => sum + wordScore(field, q), 0);

describe('searches on SQLite and PostgreSQL', () => {
  it('answer every people search alike, and as a filter over the records would', async () => {
    let found = 0;
    await fc.assert(
      fc.asyncProperty(peopleQuery, async (raw) => {
        const query = JSON.parse(JSON.stringify(raw)) as SearchQuery<PeopleFilters>;
        const rows = people
          .filter((p) => personMatches(p.facts, query.filters, query.q))
          .map((p) => ({ id: p.id, rank: query.q ? personRank(p.facts, query.q) : 0 }));
        const want = expected(rows, query);
        if (want.hits.length > 0) found++;
        expect(await answer(sqlite.searchPeople(query))).toEqual(want);
        expect(await answer(postgres.searchPeople(query))).toEqual(want);
      }),
      { numRuns: 150 },
    );
    // Enough of the searches find someone for the comparison to mean something: about a third do (44 to
    // 57 of 150 in six runs), so the bar sits well below that, where chance alone does not trip it.
    expect(found).toBeGreaterThan(30);
  }, 120_000);

  it('answer every company search alike, and as a filter over the records would', async () => {
    const facts = companies.map((c) => c.facts);
    const values = (field: 'industries' | 'size' | 'revenue') => [
      ...new Set(facts.flatMap((f) => f[field].split('|').filter(Boolean))),
    ];
    const companyQuery = fc.record({
      filters: someOf(
        fc.record({
          industries: pick(values('industries').slice(0, 10)),
          sizes: pick(values('size')),
          states: pick(['NSW', 'VIC', 'AUK', 'WA']),
          countries: pick(['AU', 'NZ']),
          technologies: pick(['xero', 'shopify', 'hubspot', 'salesforce']),
          revenues: pick(values('revenue')),
          yearFounded: fc.record({ gte: fc.integer({ min: 1900, max: 2024 }) }),
        }),
      ),
      q: fc.option(someWords([...new Set(facts.flatMap((f) => f.name.trim().split(' ')))].slice(0, 40), 1), {
        nil: undefined,
        freq: 3,
      }),
      limit: fc.integer({ min: 1, max: 30 }),
    });
    let found = 0;
    await fc.assert(
      fc.asyncProperty(companyQuery, async (raw) => {
        const query = JSON.parse(JSON.stringify(raw)) as SearchQuery<CompanyFilters>;
        const rows = companies
          .filter((c) => companyMatches(c.facts, query.filters, query.q))
          .map((c) => ({ id: c.id, rank: query.q ? companyRank(c.facts, query.q) : 0 }));
        const want = expected(rows, query);
        if (want.hits.length > 0) found++;
        expect(await answer(sqlite.searchCompanies(query))).toEqual(want);
        expect(await answer(postgres.searchCompanies(query))).toEqual(want);
      }),
      { numRuns: 100 },
    );
    expect(found).toBeGreaterThan(40);
  }, 120_000);
});
