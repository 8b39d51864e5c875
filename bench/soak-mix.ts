// The soak's request mix: one row per class of request — its share, the key it uses, the statuses it may
// get — and the request paths drawn for each from the generated data set.
import { seededRandom } from './dataset.js';
import { forEachLine } from './lines.js';

/** Which bearer token a class sends: the soak's key, a key with a low rate, or a token no key has. */
export type Token = 'main' | 'limited' | 'unknown';

/** Values drawn from the data set that the classes build their paths from. */
export interface Pool {
  people: PersonValues[];
  companies: CompanyValues[];
  /** Work e-mails several people list (shared inboxes): a lookup by one is ambiguous. */
  sharedInboxes: string[];
}

interface PersonValues {
  id: string;
  lnUrl?: string;
  /** A work e-mail of this person's alone. */
  workEmail?: string;
  personalEmail?: string;
}

interface CompanyValues {
  id: string;
  lnSlug?: string;
  fqdn?: string;
  website?: string;
  abn?: string;
}

export interface RequestClass {
  /** Sent as X-Request-Id, which the server echoes: how each response is told apart. */
  name: string;
  /** Parts of 100 of the requests. */
  share: number;
  token: Token;
  /** Statuses that are right for it; any other is an unexpected error. */
  expected: readonly number[];
  paths: (pool: Pool) => string[];
}

const q = (path: string, name: string, value: string | undefined) =>
  value ? [`${path}?${name}=${encodeURIComponent(value)}`] : [];
const slugOf = (url: string) => url.replace(/\/+$/, '').split('/').at(-1)!;

/** A person's identifiers, one class per kind. */
const person = (
  kind: string,
  share: number,
  value: (p: PersonValues) => string | undefined,
): RequestClass => ({
  name: `people.${kind}`,
  share,
  token: 'main',
  expected: [200],
  paths: (pool) => pool.people.flatMap((p) => q('/people', kind, value(p))),
});

const company = (
  kind: string,
  share: number,
  value: (c: CompanyValues) => string | undefined,
): RequestClass => ({
  name: `company.${kind}`,
  share,
  token: 'main',
  expected: [200],
  paths: (pool) => pool.companies.flatMap((c) => q('/company', kind, value(c))),
});

/**
 * The mix, in parts of 100. Bulk and search requests join as rows here once their endpoints exist (a row
 * per operation, with the statuses it may answer).
 */
export const MIX: readonly RequestClass[] = [
  person('id', 10, (p) => p.id),
  person('ln_slug', 7, (p) => p.lnUrl && slugOf(p.lnUrl)),
  person('ln_url', 7, (p) => p.lnUrl),
  person('work_email', 10, (p) => p.workEmail),
  person('personal_email', 6, (p) => p.personalEmail),
  company('id', 6, (c) => c.id),
  company('ln_slug', 5, (c) => c.lnSlug),
  company('ln_url', 5, (c) => c.lnSlug && `https://www.linkedin.com/company/${c.lnSlug}`),
  company('fqdn', 6, (c) => c.fqdn),
  company('website', 6, (c) => c.website),
  company('abn', 6, (c) => c.abn),
  {
    name: 'not_found',
    share: 8,
    token: 'main',
    expected: [404],
    paths: (pool) =>
      pool.people.flatMap((p, i) => [
        `/people?id=fp9999${String(i).padStart(8, '0')}`,
        `/people?work_email=${encodeURIComponent(`nobody.${i}@${p.id}.example.com`)}`,
        `/company?website=https://unknown-${i}.example.net/`,
      ]),
  },
  {
    name: 'ambiguous',
    share: 4,
    token: 'main',
    expected: [409],
    paths: (pool) => pool.sharedInboxes.map((email) => `/people?work_email=${encodeURIComponent(email)}`),
  },
  {
    name: 'bad_request',
    share: 4,
    token: 'main',
    expected: [400],
    paths: (pool) =>
      pool.people.flatMap((p, i) => [
        '/people',
        `/people?colour=blue&id=${p.id}`,
        `/people?ln_url=${encodeURIComponent(`https://www.linkedin.com/company/acme-${i}`)}`,
        `/company?abn=${String(51_824_753_550 + (i % 6))}`, // failing the checksum (…556 is valid)
        `/people?id=${p.id}&id=${p.id}`,
      ]),
  },
  {
    name: 'unknown_token',
    share: 2,
    token: 'unknown',
    // The address's limit of requests without a valid token (ENRICH_UNAUTHENTICATED_RATE, 20 a second)
    // refuses what this class sends beyond it: the load generator is one address.
    expected: [401, 429],
    paths: (pool) => pool.people.map((p) => `/people?id=${p.id}`),
  },
  {
    name: 'over_rate',
    share: 8,
    token: 'limited',
    expected: [200, 429],
    paths: (pool) => pool.people.map((p) => `/people?id=${p.id}`),
  },
];

/** The rate of the key the `over_rate` class hammers, per second: far below its share of the load. */
export const LIMITED_RATE = 5;

interface PersonLine {
  id: string;
  linkedin?: string | null;
  emails?: { work?: Array<{ value?: string }> | null; personal?: Array<{ value?: string }> | null } | null;
}

interface CompanyLine {
  id: string;
  linkedin?: string | null;
  fqdn?: string | null;
  website?: string | null;
  industry_codes?: { abn?: string | null } | null;
}

/** `count` items drawn uniformly from a stream (reservoir sampling), with `random`. */
function reservoir<T>(count: number, random: () => number) {
  const kept: T[] = [];
  let seen = 0;
  return {
    offer(make: () => T) {
      seen++;
      if (kept.length < count) kept.push(make());
      else {
        const slot = Math.floor(random() * seen);
        if (slot < count) kept[slot] = make();
      }
    },
    kept,
  };
}

/**
 * Draws `count` people and `count` companies at random (seeded), and finds every shared inbox: one pass
 * over each file.
 */
export async function drawPool(
  files: { people: string; companies: string },
  count: number,
  seed: number,
): Promise<Pool> {
  const random = seededRandom(seed);
  const inboxes = new Map<string, number>();
  const people = reservoir<PersonLine>(count, random);
  await forEachLine(files.people, (line) => {
    const record = JSON.parse(line) as PersonLine;
    for (const { value } of record.emails?.work ?? []) {
      if (value) inboxes.set(value.toLowerCase(), (inboxes.get(value.toLowerCase()) ?? 0) + 1);
    }
    people.offer(() => record);
  });
  const companies = reservoir<CompanyValues>(count, random);
  await forEachLine(files.companies, (line) => {
    companies.offer(() => {
      const c = JSON.parse(line) as CompanyLine;
      const [id, lnSlug, fqdn, website] = [c.id, c.linkedin, c.fqdn, c.website];
      return {
        id,
        lnSlug: lnSlug ?? undefined,
        fqdn: fqdn ?? undefined,
        website: website ?? undefined,
        abn: c.industry_codes?.abn ?? undefined,
      };
    });
  });
  const own = (value: string | undefined) =>
    value && inboxes.get(value.toLowerCase()) === 1 ? value : undefined;
  return {
    people: people.kept.map((p) => ({
      id: p.id,
      lnUrl: p.linkedin ?? undefined,
      workEmail: p.emails?.work?.map((e) => own(e.value)).find(Boolean),
      personalEmail: p.emails?.personal?.[0]?.value,
    })),
    companies: companies.kept,
    sharedInboxes: [...inboxes].filter(([, n]) => n > 1).map(([email]) => email),
  };
}

/** One request of the mix: its class, its token and its path. */
export interface MixedRequest {
  name: string;
  token: Token;
  path: string;
}

/**
 * `total` requests in the mix's proportions, each class cycling through its own paths, shuffled (seeded)
 * so that every stretch of the list has the same mix.
 */
export function mixRequests(pool: Pool, total: number, seed: number, mix = MIX): MixedRequest[] {
  const shares = mix.reduce((sum, c) => sum + c.share, 0);
  const requests: MixedRequest[] = [];
  for (const c of mix) {
    const paths = c.paths(pool);
    if (paths.length === 0) throw new Error(`the data set has no requests for ${c.name}`);
    const n = Math.round((total * c.share) / shares);
    for (let i = 0; i < n; i++)
      requests.push({ name: c.name, token: c.token, path: paths[i % paths.length]! });
  }
  const random = seededRandom(seed + 1);
  for (let i = requests.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [requests[i], requests[j]] = [requests[j]!, requests[i]!];
  }
  return requests;
}
