import { describe, expect, it } from 'vitest';
import { flatValue, valueAt } from '../../../src/ingest/match/flatten.js';

const person = {
  id: 'fp000000000001',
  name: 'Jane Citizen',
  middle_name: null,
  year_joined: 2019,
  current_company: { name: 'Acme Holdings', industry: ['Accounting', 'Finance'], main_phones: [] },
  emails: { work: [{ value: 'jane@acme.com.au' }, { value: 'info@acme.com.au', deliverability: null }] },
  phones: [{ value: '0400 000 000', is_dnd: false }],
};

describe('a selected field as one CSV cell', () => {
  it('is the text of a string, number or boolean, and empty for null or absent', () => {
    expect(flatValue(valueAt(person, ['name']))).toBe('Jane Citizen');
    expect(flatValue(valueAt(person, ['year_joined']))).toBe('2019');
    expect(flatValue(valueAt(person, ['phones', 'is_dnd']))).toBe('false');
    expect(flatValue(valueAt(person, ['middle_name']))).toBe('');
    expect(flatValue(valueAt(person, ['headline']))).toBe('');
    expect(flatValue(valueAt(person, ['current_company', 'size']))).toBe('');
  });

  it('joins arrays of strings with "; ", through arrays of objects too', () => {
    expect(flatValue(valueAt(person, ['current_company', 'industry']))).toBe('Accounting; Finance');
    expect(flatValue(valueAt(person, ['emails', 'work', 'value']))).toBe(
      'jane@acme.com.au; info@acme.com.au',
    );
    expect(flatValue(valueAt(person, ['emails', 'work', 'deliverability']))).toBe('');
    expect(flatValue(valueAt(person, ['current_company', 'main_phones']))).toBe('');
  });

  it('writes objects and arrays of objects as JSON text', () => {
    expect(flatValue(valueAt(person, ['phones']))).toBe('[{"value":"0400 000 000","is_dnd":false}]');
    expect(flatValue(valueAt(person, ['emails', 'work']))).toBe(
      '[{"value":"jane@acme.com.au"},{"value":"info@acme.com.au","deliverability":null}]',
    );
  });
});
