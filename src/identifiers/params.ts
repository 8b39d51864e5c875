// Lookup query parameters to the normalised key looked up in the identifier index, exactly as at import.
import { ProblemError } from '../errors.js';
import type { CompanyIdentifierKind, IdentifierKind, PersonIdentifierKind } from '../vocabulary/entities.js';
import { isRecordId } from '../vocabulary/record-id.js';
import { parseAbn } from './abn.js';
import { parseHost, registrableDomain } from './domain.js';
import { parseEmail } from './email.js';
import { parseEmailSha256 } from './email-hash.js';
import { MAX_IDENTIFIER_BYTES, withinKeyLimit } from './key-bytes.js';
import { type LinkedinEntity, parseLinkedinSlug, parseLinkedinUrl } from './linkedin.js';
import { accept, type Normalised, reject } from './normalised.js';

export const PERSON_PARAMS = [
  'id',
  'ln_slug',
  'ln_url',
  'work_email',
  'personal_email',
  'work_email_sha256',
  'personal_email_sha256',
] as const;
export const COMPANY_PARAMS = ['id', 'ln_slug', 'ln_url', 'fqdn', 'abn', 'website'] as const;
/** Every identifier parameter of either entity, each once. */
export const IDENTIFIER_PARAMS: readonly string[] = [
  ...new Set<string>([...PERSON_PARAMS, ...COMPANY_PARAMS]),
];
export type PersonParam = (typeof PERSON_PARAMS)[number];
export type CompanyParam = (typeof COMPANY_PARAMS)[number];

/**
 * What to look up: a record id, or a normalised identifier. `fallback` is the registrable domain to
 * try when a host given as `website` or `fqdn` is not itself on file.
 */
export type LookupKey =
  | { kind: 'id'; value: string }
  | { kind: IdentifierKind; value: string; fallback?: string };

function parseId(raw: string): Normalised {
  const id = raw.trim();
  return isRecordId(id) ? accept(id) : reject('not a record id (1 to 64 letters, digits, _ or -)');
}

/**
 * The outcome's value, or a 400 naming the parameter (never quoting its value): one that does not
 * normalise, or whose normalised form is too long for the identifier index (its bytes, not characters).
 */
function keyValue(param: string, outcome: Normalised): string {
  const bounded = withinKeyLimit(outcome);
  if (bounded.ok) return bounded.value;
  // Some reasons (the ABN's) already open with the parameter's name.
  const { reason } = bounded;
  const detail = reason.startsWith(`${param} `) ? reason : `${param}: ${reason}`;
  const limit = outcome.ok ? { max_bytes: MAX_IDENTIFIER_BYTES } : {};
  throw new ProblemError('invalid_parameter', detail, { parameter: param, ...limit });
}

/** The parameters both operations accept; only `ln_url` differs, in the kind of URL it expects. */
function sharedKey(param: 'id' | 'ln_url' | 'ln_slug', raw: string, expect: LinkedinEntity): LookupKey {
  if (param === 'id') return { kind: 'id', value: keyValue(param, parseId(raw)) };
  const slug = param === 'ln_url' ? parseLinkedinUrl(raw, expect) : parseLinkedinSlug(raw);
  return { kind: 'linkedin', value: keyValue(param, slug) };
}

function hostKey(param: CompanyParam, raw: string): LookupKey {
  const host = keyValue(param, parseHost(raw));
  const domain = registrableDomain(host);
  return domain && domain !== host
    ? { kind: 'domain', value: host, fallback: domain }
    : { kind: 'domain', value: host };
}

/**
 * The lookup key of one `/people` parameter; a value that does not normalise is a 400 naming it.
 * @example personLookupKey('work_email', ' Jane@Acme.com.au') // { kind: 'work_email', value: 'jane@acme.com.au' }
 */
export function personLookupKey(param: PersonParam, raw: string): LookupKey {
  switch (param) {
    case 'id':
    case 'ln_url':
    case 'ln_slug':
      return sharedKey(param, raw, 'person');
    case 'work_email':
    case 'personal_email':
      return { kind: param satisfies PersonIdentifierKind, value: keyValue(param, parseEmail(raw)) };
    case 'work_email_sha256':
    case 'personal_email_sha256':
      return { kind: param satisfies PersonIdentifierKind, value: keyValue(param, parseEmailSha256(raw)) };
  }
}

/**
 * The lookup key of one `/company` parameter; a value that does not normalise is a 400 naming it.
 * @example companyLookupKey('website', 'https://shop.acme.com.au/x')
 * // { kind: 'domain', value: 'shop.acme.com.au', fallback: 'acme.com.au' }
 */
export function companyLookupKey(param: CompanyParam, raw: string): LookupKey {
  switch (param) {
    case 'id':
    case 'ln_url':
    case 'ln_slug':
      return sharedKey(param, raw, 'company');
    case 'fqdn':
    case 'website':
      return hostKey(param, raw);
    case 'abn':
      return { kind: 'abn' satisfies CompanyIdentifierKind, value: keyValue(param, parseAbn(raw)) };
  }
}
