// The rules the OpenAPI document states in words (its descriptions), which its schemas cannot say: what a
// generated request that breaks one is answered, and what one that keeps them all is.
import { BlockList, isIP } from 'node:net';
import { CHANGE_EVENT_TYPES } from '../../src/changes/events.js';
import { MIN_WORD_LENGTH } from '../../src/search/v1.js';
import { words } from '../../src/search/values.js';
import type { Generated, Schema } from './request-arbitraries.js';

const IDENTIFIERS = [
  'id',
  'work_email',
  'personal_email',
  'work_email_sha256',
  'personal_email_sha256',
  'fqdn',
];
const NAME_ONLY = ['company_id', 'company_domain', 'company_ln_slug', 'company_name', 'min_likelihood'];
const COMPATIBLE_FILTERS = ['companyId', 'position', 'seniority', 'department', 'selectedCountry'];

/** A block list of CIDR ranges of one family. */
function blockList(ranges: string[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [network, prefix] = range.split('/');
    list.addSubnet(network!, Number(prefix), family);
  }
  return list;
}

/**
 * The addresses a webhook URL may not name, as the `url` member's description lists them (unless the server
 * allows private addresses, which this test's does not).
 */
const REFUSED_V4 = blockList(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '224.0.0.0/4',
    '240.0.0.0/4',
  ],
  'ipv4',
);
const REFUSED_V6 = blockList(
  ['::/128', '::1/128', '::ffff:0:0/96', '64:ff9b::/96', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'],
  'ipv6',
);

/** Why a webhook URL is refused, by the rules its description states; undefined when it is accepted. */
export function refusedUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'not http or https';
  if (parsed.username !== '' || parsed.password !== '') return 'a user name or password';
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  if (family === 4 && REFUSED_V4.check(host, 'ipv4')) return 'a refused IPv4 address';
  if (family === 6 && REFUSED_V6.check(host, 'ipv6')) return 'a refused IPv6 address';
  return undefined;
}

/** Every type of a comma-separated list is one the description names (spaces around each ignored). */
export const knownTypes = (text: string) =>
  text.split(',').every((type) => (CHANGE_EVENT_TYPES as readonly string[]).includes(type.trim()));

/** An ISO 8601 date or date and time, as the admin API's moments are given. */
export const isMoment = (text: unknown): text is string =>
  typeof text === 'string' && /^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNIT: Record<string, number> = { s: 1000, m: 60_000, h: HOUR, d: DAY };
/** A usage series' span, by granularity, as the description states: its default and its longest. */
const USAGE_SPANS: Record<string, { default: number; most: number }> = {
  minute: { default: HOUR, most: 7 * DAY },
  hour: { default: DAY, most: 31 * DAY },
  day: { default: 30 * DAY, most: 3660 * DAY },
};

/** The rules an admin request breaks, each with the status it is answered; none when it keeps them all. */
function adminBroken(
  operationId: string,
  query: Record<string, unknown>,
  b: Record<string, unknown>,
  own: Own,
): Expected[] {
  const broken: Expected[] = [];
  for (const name of ['from', 'to']) {
    if (query[name] !== undefined && !isMoment(query[name]))
      broken.push(refused(400, `${name} not a moment`));
  }
  if (operationId === 'adminUsage' && broken.length === 0) {
    const span = USAGE_SPANS[String(query.granularity ?? 'day')]!;
    const to = query.to === undefined ? Date.now() : Date.parse(query.to as string);
    const from = query.from === undefined ? to - span.default : Date.parse(query.from as string);
    if (from >= to) broken.push(refused(400, 'from not before to'));
    else if (to - from > span.most) broken.push(refused(400, 'a span longer than the granularity allows'));
  }
  if (operationId === 'adminAudit') {
    if (query.person !== undefined && query.company !== undefined)
      broken.push(refused(400, 'person and company'));
    if (query.person === undefined && query.company === undefined && query.key === undefined) {
      broken.push(refused(400, 'neither person, company nor key'));
    } else if (query.key !== undefined && query.key !== own.key) {
      broken.push(refused(404, 'an unknown key'));
    }
  }
  if (operationId === 'adminSuppressions' || operationId === 'adminUnsuppress') {
    const identifiers = Object.keys(query).filter((name) => name !== 'entity');
    const entity = query.entity as string | undefined;
    if (entity === undefined) {
      if (identifiers.length > 0) broken.push(refused(400, 'an identifier without entity'));
    } else {
      const others = identifiers.filter((name) => !own.identifiers[entity]!.includes(name));
      if (others.length > 0) broken.push(refused(400, `${others.join(', ')} not of ${entity}`));
      if (operationId === 'adminUnsuppress' && identifiers.length === 0) {
        broken.push(refused(400, 'no identifier'));
      }
    }
  }
  // A grace of the schema's pattern, at most a year, as its description states.
  const grace = typeof b.grace === 'string' ? /^\s*(\d+)([smhd]?)\s*$/.exec(b.grace) : null;
  if (grace !== null && Number(grace[1]) * UNIT[grace[2] || 's']! > 365 * DAY) {
    broken.push(refused(400, 'a grace longer than 365d'));
  }
  if (b.expires_at !== undefined && b.expires_at !== null) {
    if (!isMoment(b.expires_at)) broken.push(refused(400, 'expires_at not a moment'));
    else if (Date.parse(b.expires_at) <= Date.now()) broken.push(refused(400, 'expires_at in the past'));
  }
  return broken;
}

/** What a request is answered: any of `statuses`, and `why` when a stated rule decides it. */
export interface Expected {
  statuses: number[];
  why?: string;
}

/**
 * The resources of the test's key that generated requests may name: a watchlist, and the key itself; and each
 * entity's identifiers, as the document's SuppressionRequest lists them (suppressionIdentifiers).
 */
export interface Own {
  watchlist: string;
  key: string;
  identifiers: Record<string, string[]>;
}

/** Each entity's identifiers, as the members of the document's SuppressionRequest list them. */
export function suppressionIdentifiers(schemas: Record<string, unknown>): Record<string, string[]> {
  const request = schemas.SuppressionRequest as { oneOf: Array<{ properties: Record<string, Schema> }> };
  return Object.fromEntries(
    request.oneOf.map(({ properties }) => {
      const entity = properties.entity!;
      const name = (entity.const ?? (entity.enum as unknown[])[0]) as string;
      return [name, Object.keys(properties).filter((member) => member !== 'entity' && member !== 'dry_run')];
    }),
  );
}

const refused = (status: number, why: string): Expected => ({ statuses: [status], why });

/**
 * What a generated request of an operation is answered, by the rules the document states: a 400 for one that
 * breaks a rule, a 404 for a watchlist or key that is not there, else what the operation answers when all is
 * well (`ok`, its documented 2xx), or, for an answer that depends on the data, one of those it may give.
 */
export function expected(operationId: string, { query, body }: Generated, ok: number[], own: Own): Expected {
  const given = (object: unknown) => Object.keys((object ?? {}) as object);
  const b = (body ?? {}) as Record<string, unknown>;
  if (/^lookup(Person|Company)(V1|Post)?$/.test(operationId)) {
    const names = given(operationId.endsWith('Post') ? body : query);
    if (!names.some((name) => IDENTIFIERS.includes(name))) return refused(400, 'an identifier is needed');
    // Names are not generated: what only goes with one is refused.
    if (names.some((name) => NAME_ONLY.includes(name))) {
      return refused(400, 'a company or min_likelihood only with a name');
    }
    return { statuses: [200, 404, 409] };
  }
  if (operationId === 'searchPeopleCompatible') {
    if (Number(query.from ?? 0) >= 10_000) return refused(400, 'a page past the first 10,000 results');
    if (!given(query).some((name) => COMPATIBLE_FILTERS.includes(name)))
      return refused(400, 'a filter is needed');
  }
  if (operationId === 'searchPeople' || operationId === 'searchCompanies') {
    const filtered = given(b.filters).length > 0;
    if (b.q === undefined && !filtered) return refused(400, 'q or a filter is needed');
    // The words the server reads (src/search/values.ts), of two characters or more (MIN_WORD_LENGTH).
    const longWord = b.q !== undefined && words('q', b.q).some((word) => word.length >= MIN_WORD_LENGTH);
    if (!filtered && !longWord) return refused(400, 'q needs a word of two characters without a filter');
  }
  if (operationId.endsWith('Bulk') && query.fields !== undefined && b.fields !== undefined) {
    return refused(400, 'fields in the query or the body, not both');
  }
  if (operationId === 'listChanges') {
    if (typeof query.types === 'string' && !knownTypes(query.types))
      return refused(400, 'an unknown event type');
    if (query.watchlist !== undefined && query.watchlist !== own.watchlist) {
      return refused(404, "another key's watchlist, or none");
    }
  }
  if (operationId === 'createWebhook' || operationId === 'updateWebhook') {
    const why = typeof b.url === 'string' ? refusedUrl(b.url) : undefined;
    if (why !== undefined) return refused(400, `a URL of ${why}`);
    if (typeof b.watchlist === 'string' && b.watchlist !== own.watchlist) {
      return refused(404, "another key's watchlist, or none");
    }
  }
  if (operationId.startsWith('admin')) {
    // Which of several broken rules is answered first, the document does not say: any of theirs.
    const broken = adminBroken(operationId, query, b, own);
    if (broken.length > 0) {
      return {
        statuses: broken.flatMap((rule) => rule.statuses),
        why: broken.map((rule) => rule.why).join('; '),
      };
    }
  }
  // A list's result is there once it is done: before, a 409 says it is not ready.
  if (operationId === 'listResult') return { statuses: [...ok, 409] };
  return { statuses: ok };
}
