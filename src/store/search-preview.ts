// The previews a search returns: what a record says about reaching a person, never the contact details.
import { parseLinkedinUrlOrSlug } from '../identifiers/linkedin.js';
import type { PreviewKind, SearchHit } from './search.js';
import { isMobile } from './search-phones.js';

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** A person preview, as the deployed people search returns it. */
export interface PersonPreview {
  person_id: string;
  position: string | null;
  company_name: string | null;
  /** The profile's slug, normalised as a `ln_slug` lookup takes it. */
  linkedin: string | null;
  has_email: boolean;
  has_personal_email: boolean;
  has_phone: boolean;
  has_dnd_phone: boolean;
  has_mobile: boolean;
}

/** The `/v1/people/search` preview: the compatible one, and who and where the person is. */
export interface PersonPreviewV1 extends PersonPreview {
  name: string | null;
  seniority: string | null;
  department: string | null;
  location: string[] | null;
}

export interface CompanyPreview {
  id: string;
  name: string | null;
  fqdn: string | null;
  industries: string[] | null;
  company_size: string | null;
  states: string[] | null;
}

/** E-mail entries holding an address. */
const addresses = (entries: unknown) => asArray(entries).filter((e) => filled(asObject(e)?.value));

function profileSlug(linkedin: unknown): string | null {
  if (!filled(linkedin)) return null;
  const slug = parseLinkedinUrlOrSlug(linkedin, 'person');
  return slug.ok ? slug.value : null;
}

/**
 * The deployed search's preview of a person record: `has_email` is at least one work e-mail,
 * `has_personal_email` one personal, `has_phone` one phone, `has_dnd_phone` one marked `is_dnd`, and
 * `has_mobile` one that is an Australian or New Zealand mobile (search-phones.ts).
 */
export function personPreview(person: Json): PersonPreview {
  const emails = asObject(person.emails);
  const phones = asArray(person.phones).map(asObject);
  const numbers = phones.map((phone) => phone?.value).filter(filled);
  return {
    person_id: String(person.id),
    position: stringOrNull(person.position),
    company_name: stringOrNull(asObject(person.current_company)?.name),
    linkedin: profileSlug(person.linkedin),
    has_email: addresses(emails?.work).length > 0,
    has_personal_email: addresses(emails?.personal).length > 0,
    has_phone: numbers.length > 0,
    has_dnd_phone: phones.some((phone) => phone?.is_dnd === true && filled(phone.value)),
    has_mobile: numbers.some(isMobile),
  };
}

/** The `/v1` person preview: `personPreview` with the name, seniority, department and location. */
export function personPreviewV1(person: Json): PersonPreviewV1 {
  const location = Array.isArray(person.location) ? (person.location as string[]) : null;
  return {
    ...personPreview(person),
    name: stringOrNull(person.name),
    seniority: stringOrNull(person.seniority),
    department: stringOrNull(person.department),
    location,
  };
}

const stringsOrNull = (value: unknown): string[] | null =>
  Array.isArray(value) ? (value as string[]) : null;

export function companyPreview(company: Json): CompanyPreview {
  return {
    id: String(company.id),
    name: stringOrNull(company.name),
    fqdn: stringOrNull(company.fqdn),
    industries: stringsOrNull(company.industries),
    company_size: stringOrNull(company.company_size),
    states: stringsOrNull(company.states),
  };
}

/** A record body (JSON text) parsed as an object; {} when it is not one. */
export function parseBody(body: string | Buffer): Json {
  try {
    return asObject(JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))) ?? {};
  } catch {
    return {};
  }
}

const PREVIEWS = { person: personPreview, personV1: personPreviewV1, company: companyPreview };
/** The preview of each kind. */
export type PreviewOf<K extends PreviewKind> = ReturnType<(typeof PREVIEWS)[K]>;

/** The preview of `kind` of a record body. */
export const previewBody = <K extends PreviewKind>(kind: K, body: string | Buffer): PreviewOf<K> =>
  PREVIEWS[kind](parseBody(body)) as PreviewOf<K>;

/** A hit's preview of `kind`: the one its store made, else one made of its body. */
export const previewOf = <K extends PreviewKind>(kind: K, hit: SearchHit): PreviewOf<K> =>
  'preview' in hit ? (hit.preview as PreviewOf<K>) : previewBody(kind, hit.body);
