import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { companyIdentifiers, personIdentifiers } from '../../src/identifiers/record.js';
import type { Company } from '../../src/schemas/company.js';
import type { Person } from '../../src/schemas/person.js';

/** What `printf %s ADDRESS | sha256sum` prints. */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('personIdentifiers', () => {
  it('lists the profile slug, every work and personal address (normalised, without repeats), then their hashes', () => {
    const person: Person = {
      id: 'fp000000067890',
      name: 'Jane Doe',
      linkedin: 'https://www.linkedin.com/in/Jane-Doe',
      emails: {
        work: [
          { value: 'Jane.Doe@Acme.com.au', deliverability: 'Deliverable' },
          { value: ' jane.doe@acme.com.au ' },
          { value: 'not an address' },
          { value: null },
          { value: 'jd@acme.com.au' },
        ],
        personal: [{ value: 'jane@example.com' }, { value: 'jane.doe@acme.com.au' }],
      },
    };
    expect(personIdentifiers(person)).toEqual([
      { kind: 'linkedin', value: 'jane-doe' },
      { kind: 'work_email', value: 'jane.doe@acme.com.au' },
      { kind: 'work_email', value: 'jd@acme.com.au' },
      { kind: 'personal_email', value: 'jane@example.com' },
      // The same address under another kind is another identifier.
      { kind: 'personal_email', value: 'jane.doe@acme.com.au' },
      { kind: 'work_email_sha256', value: sha256('jane.doe@acme.com.au') },
      { kind: 'work_email_sha256', value: sha256('jd@acme.com.au') },
      { kind: 'personal_email_sha256', value: sha256('jane@example.com') },
      { kind: 'personal_email_sha256', value: sha256('jane.doe@acme.com.au') },
    ]);
  });

  it('skips identifiers too long for the index, keeping the others', () => {
    const person = {
      id: 'fp1',
      name: 'Jane Citizen',
      linkedin: `https://www.linkedin.com/in/${'€'.repeat(400)}`,
      emails: { work: [{ value: `${'é'.repeat(600)}@acme.com.au` }, { value: 'jane@acme.com.au' }] },
      current_company: { name: `Acme ${'中'.repeat(400)}`, id: 'f1' },
    };
    expect(personIdentifiers(person)).toEqual([
      { kind: 'work_email', value: 'jane@acme.com.au' },
      { kind: 'work_email_sha256', value: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { kind: 'name_at_company_id', value: 'f1|citizen' },
    ]);
  });

  it('accepts a bare slug as the profile', () => {
    expect(personIdentifiers({ id: 'p', linkedin: 'Jane-Doe' })).toEqual([
      { kind: 'linkedin', value: 'jane-doe' },
    ]);
  });

  it('skips a company URL, an unparseable profile and absent or null fields, without throwing', () => {
    expect(personIdentifiers({ id: 'p', linkedin: 'https://www.linkedin.com/company/acme' })).toEqual([]);
    expect(personIdentifiers({ id: 'p', linkedin: 'https://www.linkedin.com/in/jane%zz' })).toEqual([]);
    expect(personIdentifiers({ id: 'p', linkedin: null, emails: { work: null, personal: [] } })).toEqual([]);
    expect(personIdentifiers({ id: 'p', emails: null })).toEqual([]);
    expect(personIdentifiers({ id: 'p' })).toEqual([]);
  });
});

describe('companyIdentifiers', () => {
  it('lists the slug, the domains of fqdn and website, and the ABN, normalised and without repeats', () => {
    const company: Company = {
      id: 'f000000117274',
      name: 'Acme Pty Ltd',
      linkedin: 'Acme-Pty-Ltd',
      fqdn: 'acme.com.au',
      website: 'https://www.acme.com.au/',
      industry_codes: { abn: '51 824 753 556', acn: '824753556' },
    };
    expect(companyIdentifiers(company)).toEqual([
      { kind: 'linkedin', value: 'acme-pty-ltd' },
      { kind: 'domain', value: 'acme.com.au' },
      { kind: 'abn', value: '51824753556' },
    ]);
  });

  it('keeps a website on another host as a second domain, and accepts a company URL as the slug', () => {
    const company: Company = {
      id: 'f1',
      linkedin: 'https://au.linkedin.com/company/acme-pty-ltd/',
      fqdn: 'acme.com.au',
      website: 'http://shop.acme.com.au/cart',
    };
    expect(companyIdentifiers(company)).toEqual([
      { kind: 'linkedin', value: 'acme-pty-ltd' },
      { kind: 'domain', value: 'acme.com.au' },
      { kind: 'domain', value: 'shop.acme.com.au' },
    ]);
  });

  it('skips a profile URL, hosts that do not normalise and an ABN that fails its checksum, without throwing', () => {
    const company: Company = {
      id: 'f2',
      linkedin: 'https://www.linkedin.com/in/jane-doe',
      fqdn: 'localhost',
      website: 'not a website',
      industry_codes: { abn: '51 824 753 557' },
    };
    expect(companyIdentifiers(company)).toEqual([]);
    expect(companyIdentifiers({ id: 'f3', industry_codes: { abn: '123' } })).toEqual([]);
    expect(companyIdentifiers({ id: 'f4', industry_codes: null, website: null })).toEqual([]);
  });
});
