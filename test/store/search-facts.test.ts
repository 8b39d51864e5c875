// What the search tables derive from a record (src/store/search-facts.ts): country, region, enumeration ids,
// folded words; and previews of contact, from the same any-JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePeople } from '../../src/generate/index.js';
import { companyFacts, MAX_POSITION_BYTES, personFacts } from '../../src/store/search-facts.js';
import { personPreview } from '../../src/store/search-preview.js';
import { departmentId } from '../../src/vocabulary/departments.js';
import { countryOf, stateKey } from '../../src/vocabulary/places.js';
import { seniorityId } from '../../src/vocabulary/seniorities.js';

describe('facts of a person', () => {
  it('take the country from the last entry of location only when it names Australia or New Zealand', () => {
    expect(personFacts({ location: ['Sydney', 'New South Wales', 'Australia'] }).location_country).toBe('AU');
    expect(personFacts({ location: ['Auckland', 'nz'] }).location_country).toBe('NZ');
    expect(personFacts({ location: ['Australia', 'Remote'] }).location_country).toBeNull();
    expect(personFacts({ location: ['London', 'United Kingdom'] }).location_country).toBeNull();
    expect(personFacts({ location: 'Australia' }).location_country).toBeNull();
  });

  it('number seniorities and departments in the order of contract §1, labels folded', () => {
    expect(seniorityId('Board Member / Company Director')).toBe(1);
    expect(seniorityId('vp/director/head of')).toBe(4);
    expect(seniorityId('No Data Available')).toBe(7);
    expect(departmentId('General Management')).toBe(1);
    expect(departmentId('engineering and technical')).toBeUndefined();
    expect(departmentId('Engineering & Technical')).toBe(5);
    expect(departmentId('No Data Available')).toBe(17);
    expect(personFacts({ seniority: 'Intern', department: 7 }).seniority).toBeNull();
  });

  it('name the region location names, by name or abbreviation', () => {
    expect(personFacts({ location: ['Hobart', 'Tasmania', 'Australia'] }).state).toBe('TAS');
    expect(personFacts({ location: ['Wānaka', 'Otago'] }).state).toBe('OTA');
    expect(stateKey('new south wales')).toBe('NSW');
    expect(stateKey('Ontario')).toBe('ONTARIO');
    expect(countryOf('Aotearoa')).toBeUndefined();
  });

  it('keep index keys within their limits: a company id only when it is one, a position in bytes', () => {
    expect(personFacts({ current_company: { id: 'f000000000001' } }).company_id).toBe('f000000000001');
    expect(personFacts({ current_company: { id: '€'.repeat(1400) } }).company_id).toBeNull();
    expect(personFacts({ current_company: { id: 'not an id' } }).company_id).toBeNull();
    expect(personFacts({ current_company: { id: '' } }).company_id).toBeNull();
    const position = personFacts({ position: `Head of ${'Sales '.repeat(300)}` }).position;
    expect(Buffer.byteLength(position)).toBeLessThanOrEqual(MAX_POSITION_BYTES);
    expect(position.startsWith(' head of sales sales')).toBe(true);
    expect(position.endsWith(' sales')).toBe(true);
  });

  it('are derived from any JSON without throwing, whatever the types', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const record = {
          position: value,
          location: value,
          skills: value,
          current_company: value,
          phones: value,
        };
        expect(() => personFacts(record)).not.toThrow();
        expect(() => companyFacts({ states: value, nextGen: value, year_founded: value })).not.toThrow();
        expect(() =>
          personPreview({ id: 'p1', emails: value, phones: value, linkedin: value }),
        ).not.toThrow();
      }),
    );
  });

  it('of every generated person hold a seniority, a department and a country', () => {
    for (const person of generatePeople({ companies: 20, people: 300, seed: 5 })) {
      const facts = personFacts(person as never);
      expect(facts.seniority).not.toBeNull();
      expect(facts.department).not.toBeNull();
      expect(facts.location_country).not.toBeNull();
      expect(facts.state).not.toBeNull();
    }
  });
});

describe('facts of a company', () => {
  it('list states, industries and technologies as keys, and labels compacted', () => {
    const facts = companyFacts({
      hq_country: 'United States',
      states: ['nsw', 'Victoria'],
      industries: ['Construction', 'Building & Materials'],
      company_size: '11 - 50',
      revenue: '$1M - $10M',
      year_founded: 1998,
      nextGen: { technographics: { CRM: ['HubSpot'], Accounting: ['Xero', 'MYOB'] } },
    });
    expect(facts).toMatchObject({
      country: 'united states',
      states: '|NSW|VIC|',
      industries: '|construction|building materials|',
      technologies: '|hubspot|xero|myob|',
      size: '11-50',
      revenue: '$1m-$10m',
      year_founded: 1998,
    });
    expect(companyFacts({ hq_country: 'Australia', year_founded: 1998.5 })).toMatchObject({
      country: 'AU',
      year_founded: null,
    });
  });
});
