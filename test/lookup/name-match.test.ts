import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../../src/identifiers/key-bytes.js';
import { chooseCandidate, nameLikelihood, parseNameMatch } from '../../src/lookup/name-match.js';
import type { ServedRecord } from '../../src/store/records.js';
import { thrownProblem } from '../identifiers/thrown-problem.js';

describe('parsing a match by name and company', () => {
  it('folds the name and keys the company as the index does', () => {
    expect(
      parseNameMatch({ name: 'Zoë  Anne Citizen', company_domain: 'https://www.Acme.com.au/x' }),
    ).toEqual({
      first: 'zoe',
      last: 'citizen',
      company: { param: 'company_domain', kind: 'name_at_domain', value: 'acme.com.au' },
      minLikelihood: 6,
      params: ['name', 'company_domain'],
    });
    expect(
      parseNameMatch({
        first_name: 'Jane',
        last_name: 'van der Berg',
        company_name: 'Acme Pty Ltd',
        min_likelihood: ' 9 ',
      }),
    ).toMatchObject({ last: 'vanderberg', company: { value: 'acme' }, minLikelihood: 9 });
    expect(parseNameMatch({})).toBeUndefined();
  });

  it('takes a company page URL as company_ln_slug', () => {
    expect(
      parseNameMatch({
        name: 'Jane Citizen',
        company_ln_slug: 'https://www.linkedin.com/company/acme-holdings/',
      })?.company.value,
    ).toBe('acme-holdings');
  });

  it('refuses a name and company whose key is too long for the index, naming the limit', () => {
    const problem = thrownProblem(() =>
      parseNameMatch({ name: `Jane ${'中'.repeat(200)}`, company_name: '中'.repeat(200) }),
    );
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toBe(
      'name and company_name together: longer than 1,024 bytes once normalised (UTF-8).',
    );
    expect(problem.extensions).toEqual({ parameter: 'company_name', max_bytes: MAX_IDENTIFIER_BYTES });
    expect(
      parseNameMatch({ name: `Jane ${'中'.repeat(100)}`, company_name: '中'.repeat(200) }),
    ).toBeDefined();
  });
});

describe('scoring a namesake', () => {
  it('scores the same first name 10, a short form 8, an initial 7, 2 less by company name', () => {
    expect(nameLikelihood('robert', 'robert', false)).toBe(10);
    expect(nameLikelihood('bob', 'robert', false)).toBe(8);
    expect(nameLikelihood('r', 'robert', false)).toBe(7);
    expect(nameLikelihood('robert', 'r', false)).toBe(7);
    expect(nameLikelihood('robert', 'robert', true)).toBe(8);
    expect(nameLikelihood('r', 'robert', true)).toBe(5);
    expect(nameLikelihood('tom', 'robert', false)).toBe(0);
    expect(nameLikelihood('t', 'robert', false)).toBe(0);
  });

  const record = (id: string, first_name: string): ServedRecord => ({
    id,
    etag: '"e"',
    body: Buffer.from(JSON.stringify({ id, first_name, last_name: 'Smith' })),
  });
  const match = parseNameMatch({ name: 'Bob Smith', company_id: 'f1' })!;

  it('chooses the best, skipping repeats and people whose first name differs', () => {
    const chosen = chooseCandidate(match, [record('a', 'Tom'), record('b', 'R.'), record('c', 'Robert')]);
    expect([chosen.record.id, chosen.likelihood]).toEqual(['c', 8]);
    expect(chooseCandidate(match, [record('c', 'Robert'), record('c', 'Robert')]).record.id).toBe('c');
  });

  it('reads the first name from the stored bytes as written: spaced, escaped, or only in the full name', () => {
    const stored = (id: string, body: string): ServedRecord => ({ id, etag: '"e"', body: Buffer.from(body) });
    const one = (body: string) => chooseCandidate(match, [stored('x', body)]).likelihood;
    expect(one('{"id":"x","first_name":  "Bob\\\\","last_name":"Smith"}')).toBe(10);
    expect(one('{"id":"x","first_name":"Rob\\"ert","last_name":"Smith"}')).toBe(8);
    expect(one('{"id":"x", "first_name" : "Robert", "last_name" : "Smith"}')).toBe(8);
    expect(one('{"id":"x","name":"Robert Q. Smith","current_company":{"name":"Bob Pty Ltd"}}')).toBe(8);
  });

  it('answers 409 listing every one of the best, and 404 when none reaches min_likelihood', () => {
    expect(() => chooseCandidate(match, [record('b', 'Bobby'), record('a', 'Robert')])).toThrow(
      expect.objectContaining({ code: 'ambiguous_match', extensions: { matches: { name: ['a', 'b'] } } }),
    );
    expect(() => chooseCandidate({ ...match, minLikelihood: 9 }, [record('a', 'Robert')])).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(() => chooseCandidate(match, [])).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
