// Search requests: the compatible query string and the /v1 bodies, parsed or refused; cursors; plans.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_WORDS } from '../../src/schemas/search.js';
import { parseCompatibleSearch } from '../../src/search/compatible.js';
import { decodeCursor, encodeCursor } from '../../src/search/cursor.js';
import { parseCompanySearch, parsePeopleSearch } from '../../src/search/v1.js';
import type { PeopleFilters } from '../../src/store/search.js';
import { planHints, preparePeopleSearch, type SearchTables } from '../../src/store/sql/search.js';
import { choosePlan } from '../../src/store/sql/search-plan.js';

const TABLES: SearchTables = {
  records: 'people',
  search: 'people_search',
  textFields: ['name'],
  allText: 's.name',
};

import { thrownProblem } from '../identifiers/thrown-problem.js';

describe('the compatible query string', () => {
  it('becomes filters with defaults for from and size', () => {
    expect(parseCompatibleSearch({ seniority: '5', department: '14', selectedCountry: 'au' })).toEqual({
      query: {
        filters: { seniorities: [5], departments: [14], countries: ['AU'] },
        start: { offset: 0 },
        limit: 10,
      },
      params: ['seniority', 'department', 'selectedCountry'],
    });
    expect(
      parseCompatibleSearch({ position: 'Eng. Man', companyId: 'f1', from: '20', size: '100' }).query,
    ).toEqual({
      filters: { companyIds: ['f1'], position: ['eng', 'man'] },
      start: { offset: 20 },
      limit: 100,
    });
  });

  it('is refused for every value out of its range', () => {
    for (const [name, value] of [
      ['seniority', '0'],
      ['seniority', '8'],
      ['seniority', '5.0'],
      ['department', '18'],
      ['size', '0'],
      ['size', '101'],
      ['from', '10001'],
      ['companyId', 'f 1'],
      ['selectedCountry', 'Australia'],
    ] as const) {
      const problem = thrownProblem(() => parseCompatibleSearch({ seniority: '5', [name]: value }));
      expect([problem.code, problem.extensions.parameter], `${name}=${value}`).toEqual([
        'invalid_parameter',
        name,
      ]);
    }
  });
});

describe('/v1 bodies', () => {
  it('take labels or ids, single values or lists', () => {
    const { query, params, fields, domains } = parsePeopleSearch({
      filters: {
        seniority: ['Manager', 4],
        department: 'finance',
        state: 'nsw',
        company_domain: 'shop.acme.com.au',
      },
      q: 'Head of Finance',
      size: 20,
      fields: 'name, position',
    });
    expect(query).toEqual({
      filters: { seniorities: [5, 4], departments: [14], states: ['NSW'] },
      q: ['head', 'of', 'finance'],
      limit: 20,
    });
    expect(params).toEqual(['company_domain', 'seniority', 'department', 'state', 'q']);
    expect(fields).toEqual(['person_id', 'name', 'position']);
    expect(domains).toEqual([{ host: 'shop.acme.com.au', fallback: 'acme.com.au' }]);
    expect(
      parseCompanySearch({ filters: { year_founded: { gte: 2000 }, company_size: '11-50' } }).query.filters,
    ).toEqual({
      sizes: ['11-50'],
      yearFounded: { gte: 2000 },
    });
  });

  it('are refused naming the member at fault', () => {
    const at = (body: unknown) => {
      const problem = thrownProblem(() => parsePeopleSearch(body));
      return [problem.code, problem.extensions.parameter];
    };
    expect(at({ filters: { seniority: [] } })).toEqual(['invalid_parameter', 'filters.seniority']);
    expect(at({ filters: { country: 'US' } })).toEqual(['invalid_parameter', 'filters.country']);
    expect(at({ filters: 'x' })).toEqual(['invalid_parameter', 'filters']);
    expect(at({ filters: { company_domain: 'not a domain' } })).toEqual([
      'invalid_parameter',
      'filters.company_domain',
    ]);
    expect(at({ q: 42 })).toEqual(['invalid_parameter', 'q']);
    expect(at([])).toEqual(['invalid_parameter', 'body']);
    expect(at({ q: 'xy', fields: 'name,email' })).toEqual(['invalid_parameter', 'fields']);
  });

  it('are refused past MAX_WORDS words in a text value, naming the limit', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(parsePeopleSearch({ q: words(MAX_WORDS) }).query.q).toHaveLength(MAX_WORDS);
    expect(parsePeopleSearch({ q: `${words(MAX_WORDS)} w0 W1` }).query.q).toHaveLength(MAX_WORDS);
    const cjk = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' ');
    for (const [parse, body, parameter] of [
      [parsePeopleSearch, { q: words(MAX_WORDS + 1) }, 'q'],
      [parseCompanySearch, { q: words(125) }, 'q'],
      [parsePeopleSearch, { filters: { location: ['australia', cjk] } }, 'filters.location'],
    ] as const) {
      const problem = thrownProblem(() => parse(body));
      expect(problem.code).toBe('invalid_parameter');
      expect(problem.extensions).toEqual({ parameter, max_words: MAX_WORDS });
      expect(problem.detail).toContain(`at most ${MAX_WORDS}`);
    }
    const position = thrownProblem(() => parseCompatibleSearch({ position: words(40) }));
    expect(position.extensions).toEqual({ parameter: 'position', max_words: MAX_WORDS });
  });
});

describe('cursors', () => {
  it('give back the sort key they were made of, and refuse anything else', () => {
    fc.assert(
      fc.property(fc.nat(), fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), (rank, id) => {
        expect(decodeCursor(encodeCursor({ rank, id }))).toEqual({ rank, id });
      }),
    );
    for (const token of [
      '',
      'x',
      encodeCursor({ rank: -1, id: 'a' }),
      Buffer.from('[1,"a b"]').toString('base64url'),
    ]) {
      expect(thrownProblem(() => decodeCursor(token)).extensions.parameter).toBe('cursor');
    }
  });
});

describe('plans', () => {
  const query = { filters: {}, limit: 10 };
  it('walk in id order when matches are many, and find them when few', () => {
    expect(choosePlan(10_001, 1_000_000, query)?.plan).toBe('ordered');
    expect(choosePlan(50, 1_000_000, query)?.plan).toBe('filtered');
    expect(choosePlan(10_001, 1_000_000, { ...query, q: ['x'] })?.plan).toBe('filtered');
    expect(choosePlan(0, 1_000_000, query)).toBeUndefined();
    expect(choosePlan(30, 1_000_000, { ...query, start: { offset: 30 } })).toBeUndefined();
  });

  it('find and sort matches that B-trees alone find sooner than through a text index', () => {
    const byText = { indexOrdered: false, textIndexed: true };
    const byIndex = { indexOrdered: false, textIndexed: false };
    // 2,000 matches of a million: a walk reads some 5,000 rows for ten of them.
    expect(choosePlan(2_000, 1_000_000, query, byText)?.plan).toBe('ordered');
    expect(choosePlan(2_000, 1_000_000, query, byIndex)?.plan).toBe('filtered');
    expect(choosePlan(10_001, 1_000_000, query, byIndex)?.plan).toBe('ordered');
    // An index holding the matches in id order reads the page alone, however many they are.
    expect(choosePlan(10_001, 1_000_000, query, { ...byIndex, indexOrdered: true })?.plan).toBe('filtered');
  });
});

describe('plan hints', () => {
  const hints = (filters: PeopleFilters) => planHints(preparePeopleSearch(TABLES, { filters, limit: 10 }));
  it('know which filters an index holds in id order, and which need a text index', () => {
    expect(hints({ companyIds: ['c1'] })).toEqual({ indexOrdered: true, textIndexed: false });
    expect(hints({ seniorities: [5], departments: [2], countries: ['AU'] }).indexOrdered).toBe(true);
    expect(hints({ seniorities: [5], departments: [2] }).indexOrdered).toBe(false);
    expect(hints({ seniorities: [5, 6], departments: [2], countries: ['AU'] }).indexOrdered).toBe(false);
    expect(hints({ companyIds: ['c1'], position: ['man'] })).toEqual({
      indexOrdered: false,
      textIndexed: false,
    });
    expect(hints({ skills: ['sales'] }).textIndexed).toBe(true);
  });
});
