// The search role's contract on every backend: filters, words, ranks and pages, kept in step with every write.
import { expect, it } from 'vitest';
import { MAX_VALUES, MAX_WORDS } from '../../../src/schemas/search.js';
import type { RecordStore, RecordToStore } from '../../../src/store/records.js';
import type { PeopleFilters, SearchQuery, SearchStore } from '../../../src/store/search.js';
import type { SuppressionStore } from '../../../src/store/suppression.js';
import type { Entity, Identifier } from '../../../src/vocabulary/entities.js';

/** What the search contract writes with, and searches. */
type SearchContractStore = RecordStore & SearchStore & SuppressionStore;

const record = (id: string, fields: object): RecordToStore => {
  const body = JSON.stringify({ id, ...fields });
  return { id, body, etag: `"${body.length}"`, identifiers: [] };
};

const at = (company: string, more: object = {}) => ({
  current_company: { id: company, name: company },
  ...more,
});

/** The ids (in order) and total of a people search. */
async function people(
  store: SearchContractStore,
  filters: PeopleFilters,
  more: Partial<SearchQuery<PeopleFilters>> = {},
) {
  const page = await store.searchPeople({ filters, limit: 100, ...more });
  return { ids: page.hits.map((hit) => hit.id), total: page.total };
}

const ids = async (
  store: SearchContractStore,
  filters: PeopleFilters,
  more: Partial<SearchQuery<PeopleFilters>> = {},
) => (await people(store, filters, more)).ids;

/** Registers the search contract's tests; `store()` is the suite's fresh, empty store. */
export function searchContract(store: () => SearchContractStore) {
  const put = (entity: Entity, records: RecordToStore[]) => store().upsert(entity, records);

  it('finds people by current company, seniority, department and country, in id order', async () => {
    await put('people', [
      record(
        'p3',
        at('c1', { seniority: 'Manager', department: 'Finance', location: ['Perth', 'Australia'] }),
      ),
      record('p1', at('c1', { seniority: 'manager', department: 'Sales', location: ['Auckland', 'NZ'] })),
      record('p2', at('c2', { seniority: 'Other', department: 'Finance', location: ['Sydney', 'AU'] })),
      record('p4', { seniority: 'Seniority Unknown', department: 'Finance' }),
    ]);
    expect(await people(store(), { companyIds: ['c1'] })).toEqual({
      ids: ['p1', 'p3'],
      total: { value: 2, relation: 'eq' },
    });
    expect(await ids(store(), { seniorities: [5] })).toEqual(['p1', 'p3']);
    expect(await ids(store(), { departments: [14] })).toEqual(['p2', 'p3', 'p4']);
    expect(await ids(store(), { seniorities: [5], departments: [14], countries: ['AU'] })).toEqual(['p3']);
    expect(await ids(store(), { countries: ['NZ'] })).toEqual(['p1']);
    expect(await ids(store(), { companyIds: ['c1', 'c2'], departments: [2, 14] })).toEqual([
      'p1',
      'p2',
      'p3',
    ]);
    expect(await people(store(), { companyIds: ['c9'] })).toEqual({
      ids: [],
      total: { value: 0, relation: 'eq' },
    });
  });

  it('matches every word of a position as a word or its start, ignoring case, accents and punctuation', async () => {
    await put('people', [
      record('p1', { position: 'Engineering Manager' }),
      record('p2', { position: 'Manager, Software Engineering' }),
      record('p3', { position: 'Reengineering Lead' }),
      record('p4', { position: 'Directeur Général' }),
      record('p5', { position: null }),
    ]);
    expect(await ids(store(), { position: ['eng', 'man'] })).toEqual(['p1', 'p2']);
    expect(await ids(store(), { position: ['engineering'] })).toEqual(['p1', 'p2']);
    expect(await ids(store(), { position: ['gineer'] })).toEqual([]);
    expect(await ids(store(), { position: ['general'] })).toEqual(['p4']);
    expect(await ids(store(), { position: ['directeur', 'gen'] })).toEqual(['p4']);
  });

  it('matches positions as people hold them now: changed, deleted, shared, and combined with filters', async () => {
    await put('people', [
      record('p1', at('c1', { position: 'Finance Manager', seniority: 'Manager' })),
      record('p2', at('c1', { position: 'Finance Manager' })),
      record('p3', at('c2', { position: 'Financial Controller' })),
      record('p4', at('c2', { position: 'Manager of Finance' })),
    ]);
    expect(await people(store(), { position: ['finance', 'man'] })).toEqual({
      ids: ['p1', 'p2', 'p4'],
      total: { value: 3, relation: 'eq' },
    });
    // p3's position goes: no one holds it any more, and no one is found by it.
    await put('people', [record('p3', at('c2', { position: 'Finance Manager' }))]);
    expect(await ids(store(), { position: ['controller'] })).toEqual([]);
    expect(await ids(store(), { position: ['financ'] })).toEqual(['p1', 'p2', 'p3', 'p4']);
    await store().delete('people', ['p2']);
    expect(await ids(store(), { position: ['fin', 'man'] })).toEqual(['p1', 'p3', 'p4']);
    expect(await ids(store(), { position: ['fin'], companyIds: ['c2'] })).toEqual(['p3', 'p4']);
    expect(await ids(store(), { position: ['fin'], seniorities: [5] })).toEqual(['p1']);
    // It comes back with someone else.
    await put('people', [record('p5', { position: 'Financial Controller' })]);
    expect(await ids(store(), { position: ['controller'] })).toEqual(['p5']);
    expect(await people(store(), { position: ['fin'] }, { limit: 2, start: { offset: 3 } })).toEqual({
      ids: ['p5'],
      total: { value: 4, relation: 'eq' },
    });
  });

  it("takes a person's country from their location, else from their company as it comes and goes", async () => {
    await put('people', [
      record('p1', at('c1', { location: ['Sydney', 'New South Wales', 'Australia'] })),
      record('p2', at('c1', { location: ['Remote'] })),
      record('p3', at('c1')),
      record('p4', at('c2', { location: ['Auckland', 'New Zealand'] })),
    ]);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1']);
    await put('companies', [record('c1', { hq_country: 'New Zealand' })]);
    expect(await ids(store(), { countries: ['NZ'] })).toEqual(['p2', 'p3', 'p4']);
    await put('companies', [record('c1', { hq_country: 'Australia' })]);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1', 'p2', 'p3']);
    expect(await ids(store(), { countries: ['NZ'] })).toEqual(['p4']);
    await put('people', [record('p5', at('c1'))]);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1', 'p2', 'p3', 'p5']);
    await store().delete('companies', ['c1']);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1']);
    await put('companies', [record('c1', { hq_country: 'United States' })]);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1']);
  });

  it('follows every write: replaced, deleted and suppressed records are searched as they are now', async () => {
    await put('people', [record('p1', at('c1')), record('p2', at('c1')), record('p3', at('c1'))]);
    await put('people', [record('p1', at('c2'))]);
    expect(await ids(store(), { companyIds: ['c1'] })).toEqual(['p2', 'p3']);
    expect(await ids(store(), { companyIds: ['c2'] })).toEqual(['p1']);
    await store().delete('people', ['p2']);
    await store().suppress('people', ['p3'], ['hash-of-p3']);
    expect(await ids(store(), { companyIds: ['c1'] })).toEqual([]);
    await put('people', [record('p2', at('c1', { position: 'Head of Sales' }))]);
    expect(await ids(store(), { position: ['sales'] })).toEqual(['p2']);
  });

  it('follows an update of some columns: each filter and word as the record is now, the others kept', async () => {
    await put('companies', [record('c1', { hq_country: 'Australia' }), record('c2', { hq_country: 'NZ' })]);
    const p1 = { name: 'Ann Lee', position: 'Sales Manager', seniority: 'Manager', skills: ['Negotiation'] };
    await put('people', [record('p1', at('c1', p1)), record('p2', at('c1', { name: 'Bob Ray' }))]);
    const q = async (words: string[]) =>
      (await store().searchPeople({ filters: {}, q: words, limit: 10 })).hits.map((hit) => hit.id);
    // A field no search column comes from: every filter and word still finds p1.
    await put('people', [record('p1', at('c1', { ...p1, summary: 'Twenty years in sales' }))]);
    expect(await ids(store(), { companyIds: ['c1'], seniorities: [5], countries: ['AU'] })).toEqual(['p1']);
    expect(await ids(store(), { position: ['sales'], skills: ['negotiation'] })).toEqual(['p1']);
    expect(await q(['ann'])).toEqual(['p1']);
    // Skills only: its words and filter follow, and nothing else moves.
    await put('people', [record('p1', at('c1', { ...p1, skills: ['Forecasting'] }))]);
    expect(await ids(store(), { skills: ['negotiation'] })).toEqual([]);
    expect(await ids(store(), { skills: ['forecasting'], position: ['manager'] })).toEqual(['p1']);
    expect(await q(['forecast'])).toEqual(['p1']);
    // A job change: company, position and seniority; the country comes from the new company.
    const moved = { ...p1, position: 'Chief Executive', seniority: 'CXO', skills: ['Forecasting'] };
    await put('people', [record('p1', at('c2', moved))]);
    expect(await ids(store(), { companyIds: ['c1'] })).toEqual(['p2']);
    expect(await ids(store(), { companyIds: ['c2'], countries: ['NZ'] })).toEqual(['p1']);
    expect(await ids(store(), { position: ['sales'] })).toEqual([]);
    expect(await ids(store(), { position: ['chief'], seniorities: [5] })).toEqual([]);
    expect(await q(['chief', 'ann'])).toEqual(['p1']);
    // A location of its own: the country is the location's, whatever the company's.
    await put('people', [record('p1', at('c2', { ...moved, location: ['Perth', 'Australia'] }))]);
    expect(await ids(store(), { countries: ['AU'] })).toEqual(['p1', 'p2']);
    expect(await ids(store(), { countries: ['NZ'] })).toEqual([]);
    expect(await ids(store(), { locations: [['perth']] })).toEqual(['p1']);
    // A name: the words alone change.
    await put('people', [
      record('p1', at('c2', { ...moved, name: 'Ann Smith', location: ['Perth', 'Australia'] })),
    ]);
    expect(await q(['lee'])).toEqual([]);
    expect(await q(['smith', 'chief'])).toEqual(['p1']);
    expect(await ids(store(), { companyIds: ['c2'], countries: ['AU'] })).toEqual(['p1']);
  });

  it('pages from an offset and after a sort key, and returns each record with its stored body', async () => {
    const all = Array.from({ length: 25 }, (_, i) => record(`p${String(i).padStart(2, '0')}`, at('c1')));
    await put('people', [...all].reverse());
    const page = await store().searchPeople({
      filters: { companyIds: ['c1'] },
      start: { offset: 10 },
      limit: 5,
    });
    expect(page.total).toEqual({ value: 25, relation: 'eq' });
    expect(page.hits.map((hit) => hit.id)).toEqual(['p10', 'p11', 'p12', 'p13', 'p14']);
    expect(page.hits[0]).toMatchObject({ body: all[10]!.body });
    const after = await ids(store(), { companyIds: ['c1'] }, { start: { after: { rank: 0, id: 'p21' } } });
    expect(after).toEqual(['p22', 'p23', 'p24']);
    expect(await ids(store(), { companyIds: ['c1'] }, { start: { offset: 30 } })).toEqual([]);
  });

  it('ranks free text by whole words before word starts, then by id, and pages by rank', async () => {
    await put('people', [
      record('p1', { name: 'Sam Salesman', position: 'Engineer' }),
      record('p2', { name: 'Jo Bloggs', position: 'Sales Manager', skills: ['Sales'] }),
      record('p3', { name: 'Ann Lee', headline: 'Sales at Acme' }),
      record('p4', { name: 'Bob Ray', position: 'Chef' }),
    ]);
    const page = await store().searchPeople({ filters: {}, q: ['sales'], limit: 10 });
    expect(page.hits.map((hit) => [hit.id, hit.rank])).toEqual([
      ['p2', 4],
      ['p3', 2],
      ['p1', 1],
    ]);
    const next = await store().searchPeople({
      filters: {},
      q: ['sales'],
      start: { after: { rank: 2, id: 'p3' } },
      limit: 10,
    });
    expect(next.hits.map((hit) => hit.id)).toEqual(['p1']);
    expect(await ids(store(), { position: ['man'] }, { q: ['jo', 'sales'] })).toEqual(['p2']);
  });

  it('finds people by skills, state and location words', async () => {
    await put('people', [
      record('p1', {
        skills: ['B2B Sales', 'Negotiation'],
        location: ['North Sydney', 'New South Wales', 'Australia'],
      }),
      record('p2', { skills: ['Sales'], location: ['Hobart', 'TAS', 'Australia'] }),
      record('p3', { skills: ['Sales Negotiation'], location: ['Wānaka', 'Otago', 'New Zealand'] }),
    ]);
    expect(await ids(store(), { skills: ['sales'] })).toEqual(['p2']);
    expect(await ids(store(), { skills: ['b2b sales', 'sales negotiation'] })).toEqual(['p1', 'p3']);
    expect(await ids(store(), { states: ['NSW'] })).toEqual(['p1']);
    expect(await ids(store(), { states: ['TAS', 'OTA'] })).toEqual(['p2', 'p3']);
    expect(await ids(store(), { locations: [['syd']] })).toEqual(['p1']);
    expect(await ids(store(), { locations: [['wanaka'], ['hob']] })).toEqual(['p2', 'p3']);
  });

  it('answers the largest search a request may ask, whichever way its page is read', async () => {
    // MAX_VALUES locations of MAX_WORDS words each, and a q of MAX_WORDS words: thousands of word
    // conditions, within what each store's expressions take (SQLite refuses a thousand terms in one).
    const words = Array.from({ length: MAX_WORDS }, (_, i) => `w${i}x`);
    const located = (i: number) => ['Sydney', i === 0 ? 'Perth' : 'Hobart', 'Australia'];
    await put(
      'people',
      Array.from({ length: 12 }, (_, i) =>
        record(`p${String(i).padStart(2, '0')}`, { headline: words.join(' '), location: located(i) }),
      ),
    );
    const cjk = (v: number) =>
      Array.from({ length: MAX_WORDS }, (_, i) => String.fromCharCode(0x4e00 + v * MAX_WORDS + i));
    const others = Array.from({ length: MAX_VALUES - 1 }, (_, v) => cjk(v));
    // Everyone matches: a walk in id order, each row's words checked by the store's own expressions.
    const everyone = await ids(store(), { locations: [['australia'], ...others] }, { limit: 10 });
    expect(everyone).toHaveLength(10);
    // One matches: found through the text index, by one query of every word.
    expect(await ids(store(), { locations: [...others, ['perth']] }, { limit: 10 })).toEqual(['p00']);
    // Ranked by every word.
    const ranked = await ids(store(), { locations: [['australia'], ...others] }, { q: words, limit: 10 });
    expect(ranked).toEqual(everyone);
  });

  it('stores and serves a record whose words and identifiers are longer than any index key', async () => {
    const long = '€'.repeat(1400); // 4,200 bytes: past LMDB's keys and PostgreSQL's B-tree entries
    const id = 'fp000000000001';
    const body = JSON.stringify({ id, position: `Head of ${long}`, current_company: { id: long } });
    // Identifiers as a store written before they were bounded may hold them.
    const identifiers: Identifier[] = [
      { kind: 'work_email', value: 'jane@acme.com.au' },
      { kind: 'linkedin', value: long },
    ];
    await store().upsert('people', [{ id, body, etag: '"long"', identifiers }]);
    expect(await store().getRecord('people', id)).toEqual({ id, body, etag: '"long"' });
    expect(await store().findIds('people', 'work_email', 'jane@acme.com.au', 10)).toEqual([id]);
    await store().findIds('people', 'linkedin', long, 10); // answers, whether it lists the id or not
    const page = await store().searchPeople({ filters: { position: ['head'] }, limit: 10 });
    expect(page.hits.map((hit) => hit.id)).toEqual([id]);
    await store().upsert('people', [{ id, body: `{"id":"${id}"}`, etag: '"short"', identifiers: [] }]);
    expect(await store().findIds('people', 'work_email', 'jane@acme.com.au', 10)).toEqual([]);
  });

  it('finds companies by every filter, and ranks free text', async () => {
    await put('companies', [
      record('c1', {
        name: 'Harbour Builders',
        description: 'Commercial building in Sydney',
        industries: ['Construction', 'Building Materials'],
        company_size: '11 - 50',
        states: ['NSW', 'VIC'],
        hq_country: 'Australia',
        revenue: '$1M - $10M',
        year_founded: 1998,
        nextGen: { technographics: { CRM: ['HubSpot'], Accounting: ['Xero'] } },
      }),
      record('c2', {
        name: 'Kiwi Software',
        keywords: ['building software'],
        industries: ['Software'],
        company_size: '1000+',
        states: ['AUK'],
        hq_country: 'NZ',
        revenue: '>$1B+',
        year_founded: 2012,
        nextGen: { technographics: { CRM: ['Salesforce'] } },
      }),
    ]);
    const find = async (filters: object, q?: string[]) =>
      (await store().searchCompanies({ filters, q, limit: 10 })).hits.map((hit) => hit.id);
    expect(await find({ industries: ['construction'] })).toEqual(['c1']);
    expect(await find({ sizes: ['11-50'] })).toEqual(['c1']);
    expect(await find({ states: ['VIC', 'AUK'] })).toEqual(['c1', 'c2']);
    expect(await find({ countries: ['NZ'] })).toEqual(['c2']);
    expect(await find({ technologies: ['xero'] })).toEqual(['c1']);
    expect(await find({ revenues: ['>$1b+'] })).toEqual(['c2']);
    expect(await find({ yearFounded: { gte: 2000 } })).toEqual(['c2']);
    expect(await find({ yearFounded: { gte: 1990, lte: 2000 } })).toEqual(['c1']);
    expect(await find({}, ['build'])).toEqual(['c1', 'c2']);
    expect(await find({}, ['building'])).toEqual(['c1', 'c2']);
    expect(await find({ countries: ['AU'] }, ['software'])).toEqual([]);
  });

  it('searches what a bulk load wrote once it has finished', async () => {
    const bulk = await store().beginBulkLoad?.('people');
    if (!bulk) return; // a backend without bulk loads writes by upsert, tested above
    await put('companies', [record('c1', { hq_country: 'NZ' })]);
    await bulk.upsert([
      record('p1', at('c1', { position: 'Chief Executive Officer' })),
      record('p2', at('c2')),
    ]);
    await bulk.upsert([record('p1', at('c1', { position: 'Chief Financial Officer' }))]);
    await bulk.finish();
    expect(await ids(store(), { position: ['chief', 'fin'] })).toEqual(['p1']);
    expect(await ids(store(), { position: ['exec'] })).toEqual([]);
    expect(await ids(store(), { companyIds: ['c1'], countries: ['NZ'] })).toEqual(['p1']);
    await put('people', [record('p3', at('c1', { position: 'Chief Technology Officer' }))]);
    expect(await ids(store(), { position: ['chief'] })).toEqual(['p1', 'p3']);
  });
}
