// Lookup keys drawn at random (seeded) from the generated data set, as request paths per kind of lookup.
import { forEachLine } from './lines.js';

/** `name_company`: people by `name` + `company_domain` (issue 13: at most 1.5× the cost of `work_email`). */
export const PERSON_LOOKUPS = ['id', 'ln_url', 'work_email', 'name_company'] as const;
export const COMPANY_LOOKUPS = ['website', 'abn'] as const;
export type LookupKind = (typeof PERSON_LOOKUPS)[number] | (typeof COMPANY_LOOKUPS)[number];

/** A small, fast, seedable PRNG (mulberry32): the same seed draws the same keys. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SampledLine {
  index: number;
  text: string;
}

/** Reservoir sampling: `count` lines drawn uniformly from the file, in random order. */
/** A string of its own, not a slice of a larger one. */
const own = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

export async function sampleLines(file: string, count: number, random: () => number): Promise<SampledLine[]> {
  const kept: SampledLine[] = [];
  await forEachLine(file, (text, index) => {
    // A line is a slice of the chunk it was read in, and would keep all of that chunk alive: a sample
    // of 2,000 lines from 10,000,000 would hold gigabytes of chunks. A copy holds only itself.
    if (kept.length < count) kept.push({ index, text: own(text) });
    else {
      const slot = Math.floor(random() * (index + 1));
      if (slot < count) kept[slot] = { index, text: own(text) };
    }
  });
  for (let i = kept.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kept[i], kept[j]] = [kept[j]!, kept[i]!];
  }
  return kept;
}

interface PersonFields {
  id: string;
  linkedin?: string | null;
  emails?: { work?: Array<{ value: string }> | null } | null;
  name?: string | null;
  current_company?: { website?: string | null } | null;
}

interface CompanyFields {
  website?: string | null;
  industry_codes?: { abn?: string | null } | null;
}

export interface Sample {
  /** Request paths (with query) per kind of lookup, in random order. */
  paths: Record<LookupKind, string[]>;
  /** People ids with the line number they came from: json-server holds only the first N lines. */
  personIds: Array<{ id: string; line: number }>;
  /** A real record of median size per entity: the body the static ceiling server returns. */
  personBody: string;
  companyBody: string;
  /** JSON bodies of bulk lookups by `id`, BULK_ITEMS each, drawn from the same people. */
  bulkBodies: string[];
}

/** Items in each bulk request the benchmark sends. */
export const BULK_ITEMS = 100;

/** The sampled ids in bulk bodies of BULK_ITEMS `id` lookups each, every id used once (the last body wraps). */
function bulkBodies(ids: string[]): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < ids.length; start += BULK_ITEMS) {
    const requests = Array.from({ length: BULK_ITEMS }, (_, i) => ({
      params: { id: ids[(start + i) % ids.length]! },
    }));
    bodies.push(JSON.stringify({ requests }));
  }
  return bodies;
}

const query = (path: string, name: string, value: string | null | undefined) =>
  value ? [`${path}?${name}=${encodeURIComponent(value)}`] : [];

function medianBySize(lines: SampledLine[]): string {
  const sorted = lines.map((l) => l.text).sort((a, b) => a.length - b.length);
  const median = sorted[Math.floor(sorted.length / 2)];
  if (median === undefined) throw new Error('the data set is empty');
  return median;
}

/** Draws `count` people and `count` companies and turns them into lookups of every kind. */
export async function sampleLookups(
  files: { people: string; companies: string },
  count: number,
  seed: number,
): Promise<Sample> {
  const random = seededRandom(seed);
  const people = await sampleLines(files.people, count, random);
  const companies = await sampleLines(files.companies, count, random);
  const persons = people.map((line) => ({ line: line.index, record: JSON.parse(line.text) as PersonFields }));
  const firms = companies.map((line) => JSON.parse(line.text) as CompanyFields);
  return {
    paths: {
      id: persons.flatMap(({ record }) => query('/people', 'id', record.id)),
      ln_url: persons.flatMap(({ record }) => query('/people', 'ln_url', record.linkedin)),
      work_email: persons.flatMap(({ record }) =>
        query('/people', 'work_email', record.emails?.work?.[0]?.value),
      ),
      name_company: persons.flatMap(({ record }) =>
        record.name && record.current_company?.website
          ? [
              `/people?name=${encodeURIComponent(record.name)}&company_domain=${encodeURIComponent(record.current_company.website)}`,
            ]
          : [],
      ),
      website: firms.flatMap((record) => query('/company', 'website', record.website)),
      abn: firms.flatMap((record) => query('/company', 'abn', record.industry_codes?.abn)),
    },
    personIds: persons.map(({ record, line }) => ({ id: record.id, line })),
    bulkBodies: bulkBodies(persons.map(({ record }) => record.id)),
    personBody: medianBySize(people),
    companyBody: medianBySize(companies),
  };
}
