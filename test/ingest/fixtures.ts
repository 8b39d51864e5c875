// Synthetic NDJSON for ingest tests and the throughput measurement: realistic ~1.7 KB people.
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export const personId = (n: number) => `fp${String(n).padStart(12, '0')}`;
export const workEmail = (n: number) => `person.${n}@acme${n % 97}.com.au`;
export const linkedinSlug = (n: number) => `person-${n}-a1b2c3`;

const SKILLS = ['Leadership', 'Sales', 'Negotiation', 'Project Management', 'SQL', 'Customer Service'];

/** One person as a JSON line, unique id, work e-mail and LinkedIn URL per `n`. */
export function personLine(n: number): string {
  const first = `Jane${n % 1000}`;
  const last = `Doe${n}`;
  return JSON.stringify({
    id: personId(n),
    name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    middle_name: null,
    headline: `Senior Account Manager at Acme ${n % 97} | Helping Australian businesses grow`,
    description:
      'Experienced sales leader with a demonstrated history of working in the building materials ' +
      'industry. Skilled in negotiation, budgeting, customer relationship management and strategy.',
    position: 'Senior Account Manager',
    current_company: {
      id: `f${String(n % 97).padStart(12, '0')}`,
      name: `Acme ${n % 97} Pty Ltd`,
      size: '51 - 200',
      website: `https://www.acme${n % 97}.com.au`,
      industry: ['Building Materials', 'Construction'],
      linkedin: `acme-${n % 97}`,
      main_phones: ['+61 2 9000 0000'],
      other_phones: [],
      mobile_phones: ['+61 400 000 000'],
    },
    time_in_current_role: "Jan '23 - Present",
    month_joined: 1 + (n % 12),
    year_joined: 2015 + (n % 10),
    emails: {
      personal: [{ value: `jane.${n}@gmail.com`, deliverability: 'Deliverable' }],
      work: [{ value: workEmail(n), deliverability: 'Deliverable' }],
    },
    phones: [{ value: `+61 4${String(n).padStart(8, '0')}`, is_dnd: n % 3 === 0 }],
    linkedin: `https://www.linkedin.com/in/${linkedinSlug(n)}`,
    social_media: {
      linkedin: { handle: n, connections: '500+', followers: 812, stars: null },
      twitter: { handle: null, connections: null, followers: 120, stars: null },
    },
    location: ['Sydney', 'New South Wales', 'Australia'],
    department: 'Sales',
    seniority: 'Manager',
    gender: n % 2 ? 'female' : 'male',
    skills: SKILLS,
    education: {
      field: 'Business',
      degree: 'Bachelor of Commerce',
      date_range: '2008 - 2011',
      school_name: 'University of Sydney',
    },
    keywords: ['b2b sales', 'account management', 'construction'],
    secondary_position: [
      {
        company_id: `f${String((n + 1) % 97).padStart(12, '0')}`,
        company_name: 'Beta Holdings',
        company_size: '11 - 50',
        company_website: 'https://beta.example.com.au',
        company_linkedin: 'beta-holdings',
        company_industry: 'Retail',
        cleaned_position: 'Board Advisor',
        month_joined: 3,
        year_joined: '2019',
        time_in_current_role: "Mar '19 - Present",
        seniority: 'Board Member / Company Director',
        department: 'General Management',
      },
    ],
  });
}

/** Writes `count` people (numbered from `from`) to `file`, gzip-compressed when asked. */
export function writePeople(file: string, count: number, opts: { from?: number; gzip?: boolean } = {}) {
  const from = opts.from ?? 0;
  const lines: string[] = [];
  for (let n = from; n < from + count; n++) lines.push(personLine(n));
  const text = `${lines.join('\n')}\n`;
  writeFileSync(file, opts.gzip ? gzipSync(text) : text);
}
