// Import rate through COPY (issue 5: at least 30,000 people/s). A measurement, so opt-in: ENRICH_PG_IMPORT_RATE=1.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';

const PEOPLE = 50_000;
const BATCH = 5_000;

/** A person of about 1.5 KB with four identifiers, shaped like the generated data set. */
function syntheticPerson(n: number): RecordToStore {
  const id = `fp${String(n).padStart(12, '0')}`;
  const slug = `jane-citizen-${n.toString(36)}`;
  const work = `jane.citizen${n}@acme${n % 997}.com.au`;
  const personal = `jane${n}@gmail.com`;
  const body = JSON.stringify({
    id,
    name: 'Jane Q. Citizen',
    first_name: 'Jane',
    last_name: 'Citizen',
    middle_name: null,
    headline: `Head of Engineering at Acme ${n % 997} | Cloud, Data & Platform`,
    description: 'Builds reliable platforms.\nLoves "clean" data, tabs\tand C:\\paths.'.repeat(3),
    position: 'Head of Engineering',
    current_company: {
      id: `f${String(n % 997).padStart(12, '0')}`,
      name: `Acme ${n % 997} Pty Ltd`,
      size: '51 - 200',
      website: `https://www.acme${n % 997}.com.au`,
      industry: ['Software Development', 'IT Services'],
      linkedin: `acme-${n % 997}`,
      main_phones: ['+61 2 9000 0000'],
      other_phones: [],
      mobile_phones: [],
    },
    time_in_current_role: "Jan '23 - Present",
    month_joined: 1,
    year_joined: 2023,
    emails: {
      personal: [{ value: personal, deliverability: 'Deliverable' }],
      work: [{ value: work, deliverability: 'Deliverable' }],
    },
    phones: [{ value: `+61 4${String(n).padStart(8, '0')}`, is_dnd: false }],
    linkedin: `https://www.linkedin.com/in/${slug}`,
    social_media: { linkedin: { handle: n, connections: '500+', followers: 812, stars: null } },
    location: { city: 'Sydney', state: 'New South Wales', country: 'Australia', postcode: '2000' },
    skills: ['Kubernetes', 'PostgreSQL', 'TypeScript', 'Leadership', 'Zoë 😀'],
    seniority: 'VP/Director / Head of',
    department: 'Engineering & Technical',
  });
  return {
    id,
    body,
    etag: `"${n.toString(16)}-${body.length}"`,
    identifiers: [
      { kind: 'linkedin', value: slug },
      { kind: 'work_email', value: work },
      { kind: 'personal_email', value: personal },
      { kind: 'work_email', value: `info@acme${n % 997}.com.au` },
    ],
  };
}

let database: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  database = await createTestDatabase();
  store = await openPostgresStore({ url: database.url });
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
});

it.runIf(process.env.ENRICH_PG_IMPORT_RATE === '1')(
  'imports at least 30,000 people per second into an empty database and again over existing records',
  async () => {
    const people = Array.from({ length: PEOPLE }, (_, n) => syntheticPerson(n));
    const kb = people.reduce((sum, p) => sum + p.body.length, 0) / PEOPLE / 1024;
    for (const pass of ['insert', 'update'] as const) {
      const started = performance.now();
      for (let i = 0; i < PEOPLE; i += BATCH) await store.upsert('people', people.slice(i, i + BATCH));
      const rate = Math.round(PEOPLE / ((performance.now() - started) / 1000));
      console.log(
        `postgres ${pass}: ${rate} people/s (${PEOPLE} people, ${kb.toFixed(2)} KB each, batches of ${BATCH})`,
      );
      expect(rate).toBeGreaterThanOrEqual(30_000);
    }
    expect(await store.count('people')).toBe(PEOPLE);
  },
  120_000,
);
