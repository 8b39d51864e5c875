// LinkedIn profile and company URLs and slugs, as people type them, reduced to one normalised slug.
import { accept, type Normalised, reject, valueOrThrow } from './normalised.js';

/** What a LinkedIn URL names: a member profile or a company page. */
export type LinkedinEntity = 'person' | 'company';

/** The first path segment of a LinkedIn URL, and what it names. */
const SECTIONS: ReadonlyMap<string, LinkedinEntity> = new Map([
  ['in', 'person'],
  ['pub', 'person'],
  ['company', 'company'],
  ['school', 'company'],
  ['showcase', 'company'],
]);

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const HOST_END = /[/?#\\]/;
/** The first two path segments: the section (`in`, `company`…) and the slug. */
const SECTION_AND_SLUG = /^\/+([^/?#]+)(?:\/+([^/?#]+))?/;
const LOOKS_LIKE_URL = /linkedin\.com(?:[:/]|$)/i;
const NON_ASCII = /[\u0080-\uffff]/;
/** Characters no slug holds; a decoded `%` is refused too, so that normalising is idempotent. */
const NOT_IN_SLUG = /[\s/?#%\\\p{Cc}]/u;
/** The obfuscated id segments of an old `/pub/<name>/a7/576/b50` URL. */
const PUB_ID_SEGMENT = /^[0-9a-z]{1,3}$/;

const NOT_LINKEDIN = 'not a LinkedIn profile or company URL (linkedin.com/in/… or linkedin.com/company/…)';
const MISMATCH: Record<LinkedinEntity, string> = {
  person: 'a LinkedIn company URL, but /people expects a profile URL (linkedin.com/in/…)',
  company: 'a LinkedIn profile URL, but /company expects a company URL (linkedin.com/company/…)',
};

/** Percent-decodes and NFC-normalises a lowercased slug, refusing what no slug holds. */
function finishSlug(lowered: string): Normalised {
  let slug = lowered;
  if (slug.includes('%')) {
    try {
      slug = decodeURIComponent(slug).toLowerCase();
    } catch {
      return reject('malformed percent-encoding');
    }
  }
  if (NON_ASCII.test(slug)) slug = slug.normalize('NFC');
  if (slug === '') return reject('an empty LinkedIn slug');
  if (NOT_IN_SLUG.test(slug)) return reject('not a LinkedIn slug (it holds a slash, space, ?, # or %)');
  return accept(slug);
}

/** The path (from its first `/`) of a lowercased URL typed with or without scheme; null when not LinkedIn's. */
function linkedinPath(url: string): string | null {
  let rest = url;
  if (rest.startsWith('https://')) rest = rest.slice(8);
  else if (rest.startsWith('http://')) rest = rest.slice(7);
  else if (rest.startsWith('//')) rest = rest.slice(2);
  else if (SCHEME.test(rest)) return null;
  const end = rest.search(HOST_END);
  let host = end < 0 ? rest : rest.slice(0, end);
  const port = host.indexOf(':');
  if (port >= 0) host = host.slice(0, port);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host !== 'linkedin.com' && !host.endsWith('.linkedin.com')) return null;
  return end < 0 ? '' : rest.slice(end);
}

/** `/pub/<name>/a7/576/b50` is the old form of `/in/<name>-b50576a7`. */
function pubSlug(path: string): string | undefined {
  const [, name, a, b, c] = path
    .split(/[?#]/, 1)[0]!
    .split('/')
    .filter((segment) => segment !== '');
  if (name === undefined || name === 'dir') return undefined;
  if (a && b && c && PUB_ID_SEGMENT.test(a) && PUB_ID_SEGMENT.test(b) && PUB_ID_SEGMENT.test(c)) {
    return `${name}-${c}${b}${a}`;
  }
  return name;
}

/**
 * Like `linkedinSlugFromUrl`, but returns an outcome instead of throwing.
 * @example parseLinkedinUrl('linkedin.com/in/Jane-Doe', 'person') // { ok: true, value: 'jane-doe' }
 */
export function parseLinkedinUrl(input: string, expect: LinkedinEntity): Normalised {
  // Slugs match case-insensitively, so the whole URL is lowered once, up front.
  const path = linkedinPath(input.trim().toLowerCase());
  if (path === null) return reject(NOT_LINKEDIN);
  const [, section = '', slug] = SECTION_AND_SLUG.exec(path) ?? [];
  const entity = SECTIONS.get(section);
  if (entity === undefined) return reject(NOT_LINKEDIN);
  if (entity !== expect) return reject(MISMATCH[expect]);
  const raw = section === 'pub' ? pubSlug(path) : slug;
  if (raw === undefined) return reject('a LinkedIn URL without a profile or company name');
  return finishSlug(raw);
}

/**
 * The normalised slug of a LinkedIn profile (`expect: 'person'`) or company URL, as people type it:
 * any scheme or none, `www.` or a country subdomain, any case, percent-encoded or raw, with query,
 * fragment or extra path. A URL of the other kind, or not LinkedIn's, is a 400.
 * @example linkedinSlugFromUrl('https://au.linkedin.com/in/Jos%C3%A9-Doe/?trk=x', 'person') // 'josé-doe'
 */
export function linkedinSlugFromUrl(input: string, expect: LinkedinEntity): string {
  return valueOrThrow(parseLinkedinUrl(input, expect));
}

/**
 * Like `normaliseLinkedinSlug`, but returns an outcome instead of throwing.
 * @example parseLinkedinSlug('/Jane-Doe/') // { ok: true, value: 'jane-doe' }
 */
export function parseLinkedinSlug(input: string): Normalised {
  if (LOOKS_LIKE_URL.test(input)) return reject('a LinkedIn URL, not a slug; send it as ln_url');
  const trimmed = input.trim();
  let start = 0;
  let end = trimmed.length;
  while (start < end && trimmed[start] === '/') start++;
  while (end > start && trimmed[end - 1] === '/') end--;
  return finishSlug(trimmed.slice(start, end).toLowerCase());
}

/**
 * Normalises a LinkedIn slug (`ln_slug`): trimmed, surrounding slashes dropped, percent-decoded,
 * NFC, lowercase. A slug holding `/`, whitespace, `?` or `#`, or a whole URL, is a 400.
 * @example normaliseLinkedinSlug(' Jos%C3%A9-Doe/ ') // 'josé-doe'
 */
export function normaliseLinkedinSlug(input: string): string {
  return valueOrThrow(parseLinkedinSlug(input));
}

/**
 * A stored record's LinkedIn value, which may be a URL or a bare slug, to its normalised slug.
 * @example parseLinkedinUrlOrSlug('acme-pty-ltd', 'company') // { ok: true, value: 'acme-pty-ltd' }
 */
export function parseLinkedinUrlOrSlug(input: string, expect: LinkedinEntity): Normalised {
  return LOOKS_LIKE_URL.test(input) ? parseLinkedinUrl(input, expect) : parseLinkedinSlug(input);
}
