import { describe, expect, it } from 'vitest';
import { companyNameKey, nameParts, nameWords, splitFullName } from '../../src/identifiers/person-name.js';
import { personIdentifiers } from '../../src/identifiers/record.js';
import { sameNameShortened } from '../../src/identifiers/short-forms.js';

describe('folding names', () => {
  it('drops case, accents and punctuation within a word, and splits on anything else', () => {
    expect(nameWords("  Zoë O'Brien-Smith ")).toEqual(['zoe', 'obriensmith']);
    expect(nameWords('ŁUKASZ Żółć, Jr.')).toEqual(['lukasz', 'zolc', 'jr']);
    expect(nameWords('Søren Straße')).toEqual(['soren', 'strasse']);
    expect(nameWords('J.R.R. Tolkien')).toEqual(['jrr', 'tolkien']);
    expect(nameWords(' -- ')).toEqual([]);
  });

  it('splits a full name into its first and last word, without titles, suffixes and middle names', () => {
    expect(splitFullName('Dr Robert J. Smith Jr')).toEqual({ first: 'robert', last: ['smith'] });
    expect(splitFullName('Ms. Mary-Jane Watson')).toEqual({ first: 'maryjane', last: ['watson'] });
    expect(splitFullName('Cher')).toBeUndefined();
    // A title and a last name give no first name.
    expect(splitFullName('Dr Smith')).toBeUndefined();
  });

  it('keys a multi-word last name whole and by its last word', () => {
    expect(nameParts('José María', 'van der Berg')).toEqual({ first: 'jose', last: ['vanderberg', 'berg'] });
    expect(nameParts('Ann', "O'Neil")).toEqual({ first: 'ann', last: ['oneil'] });
    expect(nameParts('...', 'Smith')).toBeUndefined();
  });

  it('drops legal suffixes from a company name, never its first word', () => {
    expect(companyNameKey('Acme Holdings Pty. Ltd.')).toBe('acme holdings');
    expect(companyNameKey('ACME HOLDINGS LIMITED')).toBe('acme holdings');
    expect(companyNameKey('Globex Corporation Inc')).toBe('globex');
    expect(companyNameKey('Smith & Co')).toBe('smith');
    expect(companyNameKey('Co')).toBe('co');
    expect(companyNameKey('Café Société')).toBe('cafe societe');
    expect(companyNameKey('!!')).toBeUndefined();
  });
});

describe('short forms of given names', () => {
  it('pairs formal names with their short forms, and short forms of one name with each other', () => {
    for (const [a, b] of [
      ['bob', 'robert'],
      ['liz', 'elizabeth'],
      ['jim', 'james'],
      ['bob', 'rob'],
      ['peggy', 'margaret'],
      ['bill', 'william'],
    ])
      expect([sameNameShortened(a!, b!), sameNameShortened(b!, a!)]).toEqual([true, true]);
    expect(sameNameShortened('bob', 'william')).toBe(false);
    expect(sameNameShortened('zed', 'zed')).toBe(false);
  });
});

describe('the name-at-company identifiers of a person', () => {
  it('keys their last name by each way of naming their current company', () => {
    const identifiers = personIdentifiers({
      id: 'fp1',
      name: 'Jane van der Berg',
      first_name: 'Jane',
      last_name: 'van der Berg',
      current_company: {
        id: 'f1',
        name: 'Acme Pty Ltd',
        website: 'https://shop.acme.com.au/x',
        linkedin: 'https://www.linkedin.com/company/Acme',
      },
    });
    expect(identifiers).toEqual([
      { kind: 'name_at_company_id', value: 'f1|vanderberg' },
      { kind: 'name_at_company_id', value: 'f1|berg' },
      { kind: 'name_at_domain', value: 'acme.com.au|vanderberg' },
      { kind: 'name_at_domain', value: 'acme.com.au|berg' },
      { kind: 'name_at_linkedin', value: 'acme|vanderberg' },
      { kind: 'name_at_linkedin', value: 'acme|berg' },
      { kind: 'name_at_company_name', value: 'acme|vanderberg' },
      { kind: 'name_at_company_name', value: 'acme|berg' },
    ]);
  });

  it('uses the full name when first and last are missing, and gives none without a company or a name', () => {
    expect(personIdentifiers({ id: 'fp1', name: 'Sam Lee', current_company: { id: 'f1' } })).toEqual([
      { kind: 'name_at_company_id', value: 'f1|lee' },
    ]);
    expect(personIdentifiers({ id: 'fp1', name: 'Sam Lee' })).toEqual([]);
    expect(personIdentifiers({ id: 'fp1', name: 'Sam', current_company: { id: 'f1' } })).toEqual([]);
  });
});
