// The people and company searches over HTTP, on both stores: previews field by field, filters, paging,
// refusals, and what the audit log and the usage meter keep of each search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { BACKENDS, seed, type TestApp, testApp } from '../helpers/app.js';

const COMPANIES = [
  {
    id: 'fs0001',
    name: 'Harbour Fintech',
    fqdn: 'harbourfintech.com.au',
    hq_country: 'Australia',
    states: ['NSW'],
  },
  { id: 'fs0002', name: 'Kiwi Ledger', fqdn: 'kiwiledger.co.nz', hq_country: 'New Zealand', states: ['AUK'] },
];

const PEOPLE = [
  {
    id: 'ps0001',
    name: 'Aroha Ngata',
    position: 'Engineering Manager',
    seniority: 'Manager',
    department: 'Engineering & Technical',
    location: ['Auckland', 'Auckland', 'New Zealand'],
    linkedin: 'https://www.linkedin.com/in/aroha-ngata/',
    current_company: { id: 'fs0002', name: 'Kiwi Ledger' },
    emails: { work: [{ value: 'aroha@kiwiledger.co.nz' }], personal: [] },
    phones: [
      { value: '+64 21 555 0101', is_dnd: false },
      { value: '09 377 1234', is_dnd: true },
    ],
  },
  {
    id: 'ps0002',
    name: 'Ben Carter',
    position: 'Finance Manager',
    seniority: 'Manager',
    department: 'Finance',
    location: ['Sydney'],
    linkedin: 'https://au.linkedin.com/in/Ben-Carter-42?trk=x',
    current_company: { id: 'fs0001', name: 'Harbour Fintech' },
    emails: { work: [], personal: [{ value: 'ben@gmail.com' }] },
    phones: [{ value: '(02) 9876 5432', is_dnd: false }],
  },
  {
    id: 'ps0003',
    name: 'Chloé Martin',
    position: 'Head of Engineering',
    seniority: 'VP/Director / Head of',
    department: 'Engineering & Technical',
    location: ['Melbourne', 'Victoria', 'Australia'],
    current_company: { id: 'fs0001', name: 'Harbour Fintech' },
    emails: { work: [{ value: 'chloe@harbourfintech.com.au' }], personal: [{ value: 'chloe@icloud.com' }] },
    phones: [{ value: '0412 345 678', is_dnd: true }],
  },
  { id: 'ps0004', name: 'Dana Lee', position: null, seniority: 'Manager', department: 'Finance' },
];

/** The previews these records should get, written out by hand from the records above. */
const PREVIEWS = {
  ps0001: {
    person_id: 'ps0001',
    position: 'Engineering Manager',
    company_name: 'Kiwi Ledger',
    linkedin: 'aroha-ngata',
    has_email: true,
    has_personal_email: false,
    has_phone: true,
    has_dnd_phone: true,
    has_mobile: true,
  },
  ps0002: {
    person_id: 'ps0002',
    position: 'Finance Manager',
    company_name: 'Harbour Fintech',
    linkedin: 'ben-carter-42',
    has_email: false,
    has_personal_email: true,
    has_phone: true,
    has_dnd_phone: false,
    has_mobile: false,
  },
  ps0003: {
    person_id: 'ps0003',
    position: 'Head of Engineering',
    company_name: 'Harbour Fintech',
    linkedin: null,
    has_email: true,
    has_personal_email: true,
    has_phone: true,
    has_dnd_phone: true,
    has_mobile: true,
  },
  ps0004: {
    person_id: 'ps0004',
    position: null,
    company_name: null,
    linkedin: null,
    has_email: false,
    has_personal_email: false,
    has_phone: false,
    has_dnd_phone: false,
    has_mobile: false,
  },
};

describe.each(BACKENDS)('search on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(backend);
    await seed(t.store, 'companies', COMPANIES);
    await seed(t.store, 'people', PEOPLE);
  });
  afterAll(() => t.close());

  const search = (query: string, auth = t.auth) =>
    t.app.inject({ method: 'POST', url: `/people/search?${query}`, headers: { authorization: auth } });
  const v1 = (path: string, payload: object, auth = t.auth) =>
    t.app.inject({ method: 'POST', url: `/v1/${path}/search`, headers: { authorization: auth }, payload });

  it('returns previews field by field, in person id order, with the total in headers', async () => {
    const res = await search('department=14');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([PREVIEWS.ps0002, PREVIEWS.ps0004]);
    expect(res.headers['enrich-total']).toBe('2');
    expect(res.headers['enrich-total-relation']).toBe('eq');
    expect(res.headers.ratelimit).toBeDefined();
    const engineers = await search('seniority=4');
    expect(engineers.json()).toEqual([PREVIEWS.ps0003]);
    const everyone = await search('seniority=5&size=100');
    expect(everyone.json()).toEqual([PREVIEWS.ps0001, PREVIEWS.ps0002, PREVIEWS.ps0004]);
  });

  it('filters by company, position words, and country from location or company', async () => {
    const ids = async (query: string) =>
      ((await search(query)).json() as Array<{ person_id: string }>).map((p) => p.person_id);
    expect(await ids('companyId=fs0001')).toEqual(['ps0002', 'ps0003']);
    expect(await ids('position=eng%20man')).toEqual(['ps0001']);
    expect(await ids('position=ENGINEERING')).toEqual(['ps0001', 'ps0003']);
    expect(await ids('position=head-of%2C%20eng')).toEqual(['ps0003']);
    // ps0002's location names no country: their company's hq_country (Australia) is theirs.
    expect(await ids('selectedCountry=AU')).toEqual(['ps0002', 'ps0003']);
    expect(await ids('selectedCountry=NZ&seniority=5&department=5')).toEqual(['ps0001']);
    expect(await ids('companyId=fs0009')).toEqual([]);
  });

  it('pages with from and size', async () => {
    const page = async (from: number) =>
      ((await search(`seniority=5&from=${from}&size=2`)).json() as Array<{ person_id: string }>).map(
        (p) => p.person_id,
      );
    expect(await page(0)).toEqual(['ps0001', 'ps0002']);
    expect(await page(2)).toEqual(['ps0004']);
    expect(await page(3)).toEqual([]);
  });

  it('refuses bad searches with a problem naming the parameter', async () => {
    const problem = async (query: string) => {
      const res = await search(query);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      const { status, code, parameter } = res.json();
      return { status, code, parameter };
    };
    expect(await problem('seniority=9')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'seniority',
    });
    expect(await problem('department=0')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'department',
    });
    expect(await problem('seniority=5&size=0')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'size',
    });
    expect(await problem('seniority=5&size=101')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'size',
    });
    expect(await problem('seniority=5&from=-1')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'from',
    });
    expect(await problem('selectedCountry=US')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'selectedCountry',
    });
    expect(await problem('position=%E2%80%94')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'position',
    });
    expect(await problem('seniority=5&seniority=6')).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'seniority',
    });
    expect(await problem('title=cfo')).toEqual({
      status: 400,
      code: 'unknown_parameter',
      parameter: 'title',
    });
    expect((await search('title=cfo')).json().accepted).toEqual([
      'companyId',
      'position',
      'seniority',
      'department',
      'selectedCountry',
      'from',
      'size',
    ]);
    expect(await problem('size=10')).toEqual({ status: 400, code: 'missing_filter', parameter: undefined });
  });

  it('needs a live key with the people:read scope', async () => {
    expect((await search('seniority=5', '')).statusCode).toBe(401);
    const companiesOnly = await t.newKey({ scopes: ['company:read'] });
    const res = await search('seniority=5', companiesOnly.auth);
    expect(res.statusCode).toBe(403);
    expect(res.json().required_scope).toBe('people:read');
    expect((await v1('company', { q: 'ledger' }, companiesOnly.auth)).statusCode).toBe(200);
    expect((await v1('people', { q: 'aroha' }, companiesOnly.auth)).statusCode).toBe(403);
  });

  it('finds people by /v1 filters, labels or ids, and pages with cursors', async () => {
    const body = (
      await v1('people', { filters: { seniority: 'manager', country: ['AU', 'NZ'] }, size: 1 })
    ).json();
    expect(body.total).toEqual({ value: 2, relation: 'eq' });
    expect(body.results).toEqual([
      {
        ...PREVIEWS.ps0001,
        name: 'Aroha Ngata',
        seniority: 'Manager',
        department: 'Engineering & Technical',
        location: ['Auckland', 'Auckland', 'New Zealand'],
      },
    ]);
    const next = (
      await v1('people', { filters: { seniority: 5, country: ['AU', 'NZ'] }, size: 1, cursor: body.next })
    ).json();
    expect(next.results.map((r: { person_id: string }) => r.person_id)).toEqual(['ps0002']);
    expect(next.next).toBeNull();
    const atDomain = await v1('people', {
      filters: { company_domain: 'https://www.harbourfintech.com.au/team' },
      fields: ['name'],
    });
    expect(atDomain.json().results).toEqual([
      { person_id: 'ps0002', name: 'Ben Carter' },
      { person_id: 'ps0003', name: 'Chloé Martin' },
    ]);
    const ranked = await v1('people', { q: 'engineering', fields: 'position' });
    expect(ranked.json().results).toEqual([
      { person_id: 'ps0001', position: 'Engineering Manager' },
      { person_id: 'ps0003', position: 'Head of Engineering' },
    ]);
    expect(
      (await v1('people', { filters: { department: 'engineering & technical', state: 'Victoria' } }))
        .json()
        .results.map((r: { person_id: string }) => r.person_id),
    ).toEqual(['ps0003']);
  });

  it('refuses bad /v1 bodies naming what is wrong', async () => {
    const problem = async (path: string, payload: object) => {
      const res = await v1(path, payload);
      const { status, code, parameter } = res.json();
      return { status, code, parameter };
    };
    expect(await problem('people', { filters: { title: 'cfo' } })).toEqual({
      status: 400,
      code: 'unknown_parameter',
      parameter: 'filters.title',
    });
    expect(await problem('people', { filter: {} })).toEqual({
      status: 400,
      code: 'unknown_parameter',
      parameter: 'filter',
    });
    expect(await problem('people', { filters: { seniority: 'Intern' } })).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'filters.seniority',
    });
    expect(await problem('people', { q: 'xy', size: 500 })).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'size',
    });
    expect(await problem('people', { q: 'xy', cursor: 'not-a-cursor' })).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'cursor',
    });
    expect(await problem('people', { q: 'xy', fields: ['name', 'phones'] })).toEqual({
      status: 400,
      code: 'invalid_parameter',
      parameter: 'fields',
    });
    expect(await problem('people', {})).toEqual({
      status: 400,
      code: 'missing_filter',
      parameter: undefined,
    });
    expect(await problem('company', { filters: { year_founded: { after: 2000 } } })).toEqual({
      status: 400,
      code: 'unknown_parameter',
      parameter: 'filters.year_founded.after',
    });
  });

  it('finds companies by /v1 filters and text', async () => {
    const res = await v1('company', { filters: { country: 'nz' } });
    expect(res.json()).toEqual({
      total: { value: 1, relation: 'eq' },
      results: [
        {
          id: 'fs0002',
          name: 'Kiwi Ledger',
          fqdn: 'kiwiledger.co.nz',
          industries: null,
          company_size: null,
          states: ['AUK'],
        },
      ],
      next: null,
    });
    const byText = await v1('company', { q: 'harb', filters: { state: 'New South Wales' }, fields: 'fqdn' });
    expect(byText.json().results).toEqual([{ id: 'fs0001', fqdn: 'harbourfintech.com.au' }]);
  });
});

describe('search accounting', () => {
  it('audits filter names and returned ids, meters searches apart, and never counts them against the quota', async () => {
    const store = openSqliteStore(':memory:');
    await seed(store, 'companies', COMPANIES);
    await seed(store, 'people', PEOPLE);
    const app = await buildApp({ store });
    const { key, token } = await issueKey(store, { name: 'searcher', rate: 1000, quota: 1 });
    const post = (url: string, payload?: object) =>
      app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
    for (let i = 0; i < 3; i++)
      expect((await post('/people/search?seniority=5&size=2')).statusCode).toBe(200);
    expect((await post('/people/search?companyId=fs0009')).statusCode).toBe(200);
    expect((await post('/people/search?seniority=9')).statusCode).toBe(400);
    expect((await post('/v1/company/search', { q: 'kiwi' })).statusCode).toBe(200);
    // The quota of one matched lookup is still whole: searches cost none of it.
    expect(
      (await app.inject({ url: '/people?id=ps0001', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
    await app.close();
    const entries = (await store.audit({ keyId: key.id })).map(({ at: _, key_id: __, ...e }) => e);
    expect(entries).toEqual([
      ...Array(3).fill({
        operation: 'people_search',
        params: ['seniority'],
        matched: ['ps0001', 'ps0002'],
        status: 200,
      }),
      { operation: 'people_search', params: ['companyId'], matched: [], status: 200 },
      { operation: 'people_search', params: ['seniority'], matched: [], status: 400 },
      { operation: 'company_search', params: ['q'], matched: ['fs0002'], status: 200 },
      { operation: 'people', params: ['id'], matched: ['ps0001'], status: 200 },
    ]);
    const usage = Object.fromEntries(
      (await store.usage({ keyId: key.id })).map(({ operation, requests, matched, not_found, rejected }) => [
        operation,
        { requests, matched, not_found, rejected },
      ]),
    );
    expect(usage).toEqual({
      people: { requests: 1, matched: 1, not_found: 0, rejected: 0 },
      people_search: { requests: 5, matched: 3, not_found: 1, rejected: 1 },
      company_search: { requests: 1, matched: 1, not_found: 0, rejected: 0 },
    });
    expect(await store.quotaUsed(key.id, new Date().toISOString().slice(0, 7))).toBe(1);
    await store.close();
  });
});
