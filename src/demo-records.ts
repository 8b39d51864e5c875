// The records the examples of the README and docs/ look up, in the demo set so that each works as printed.
// The generator mints their ids only deep inside other seeds' blocks (person 9,156,483 of block 6409,
// company 74,717,737 of block 3723), so they never replace a generated record of a realistic set.

export const README_COMPANY = {
  id: 'f900000000001',
  name: 'Acme Holdings',
  website: 'https://www.acme.com.au',
  fqdn: 'acme.com.au',
  linkedin: 'acme-holdings',
  industry_codes: { abn: '51824753556', acn: '004085616' },
  hq_country: 'Australia',
  description: 'A company the README looks up: by website, a subdomain of it, its ABN or its LinkedIn page.',
};

export const README_PERSON = {
  id: 'fp900000000001',
  name: 'Jane Citizen',
  first_name: 'Jane',
  last_name: 'Citizen',
  position: 'Head of Finance',
  current_company: { id: README_COMPANY.id, name: README_COMPANY.name, linkedin: README_COMPANY.linkedin },
  linkedin: 'https://www.linkedin.com/in/jane-citizen',
  emails: { work: [{ value: 'jane.citizen@acme.com.au', deliverability: 'Deliverable' }] },
  location: ['Sydney', 'New South Wales', 'Australia'],
};
