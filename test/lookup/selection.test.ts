import { describe, expect, it } from 'vitest';
import { parseSelection, selectionEtag } from '../../src/lookup/selection.js';
import { thrownProblem } from '../identifiers/thrown-problem.js';

describe('a lookup’s selection', () => {
  it('has one digest however it is written: order, spaces, repeats and paths inside a whole field', () => {
    const digest = parseSelection('people', 'name,current_company').digest;
    for (const same of [
      'current_company,name',
      ' name , current_company ',
      'name,name,current_company',
      'current_company.name,current_company,name',
      'id,name,current_company',
    ]) {
      expect(parseSelection('people', same).digest, same).toBe(digest);
    }
    expect(parseSelection('people', 'name,current_company.name').digest).not.toBe(digest);
    expect(parseSelection('people', 'name').digest).not.toBe(digest);
  });

  it("puts the digest inside the record's tag, keeping it quoted and strong", () => {
    const selection = parseSelection('companies', 'name');
    expect(selectionEtag('"abc"', selection)).toBe(`"abc.${selection.digest}"`);
    expect(selectionEtag('W/"abc"', selection)).toBe(`W/"abc.${selection.digest}"`);
    expect(selection.digest).toMatch(/^[A-Za-z0-9_-]{10}$/);
  });

  it('is checked against the entity it selects from', () => {
    expect(parseSelection('companies', 'industry_codes.abn').tree.has('industry_codes')).toBe(true);
    const problem = thrownProblem(() => parseSelection('people', 'industry_codes.abn'));
    expect(problem.extensions).toMatchObject({ parameter: 'fields', field: 'industry_codes.abn' });
  });

  it('refuses a repeated, empty or overlong value as the query refuses an identifier', () => {
    expect(thrownProblem(() => parseSelection('people', ['name', 'position'])).detail).toBe(
      'fields is given more than once.',
    );
    expect(thrownProblem(() => parseSelection('people', ' ')).detail).toMatch(/fields is empty/);
    expect(thrownProblem(() => parseSelection('people', 'name,'.repeat(500))).detail).toMatch(/longer than/);
  });
});
