// Every identifier a stored record carries, normalised as at lookup, for the identifier index.
import type { Company } from '../schemas/company.js';
import type { Person } from '../schemas/person.js';
import type { Identifier, IdentifierKind } from '../vocabulary/entities.js';
import { parseAbn } from './abn.js';
import { parseHost, registrableDomain } from './domain.js';
import { parseEmail } from './email.js';
import { emailSha256, HASHED_KIND } from './email-hash.js';
import { withinKeyLimit } from './key-bytes.js';
import { parseLinkedinUrlOrSlug } from './linkedin.js';
import { accept, type Normalised } from './normalised.js';
import { companyNameKey, type NameParts, nameAtCompany, nameParts, splitFullName } from './person-name.js';

/**
 * Adds an identifier that normalised and is not yet listed; a value that did not is skipped, and so is one
 * too long for the identifier index (no lookup can ask for it).
 */
function add(identifiers: Identifier[], kind: IdentifierKind, outcome: Normalised): void {
  const bounded = withinKeyLimit(outcome);
  if (!bounded.ok) return;
  const { value } = bounded;
  for (const known of identifiers) if (known.kind === kind && known.value === value) return;
  identifiers.push({ kind, value });
}

type EmailEntries = NonNullable<NonNullable<Person['emails']>['work']>;

function addEmails(
  identifiers: Identifier[],
  kind: IdentifierKind,
  entries: EmailEntries | null | undefined,
) {
  if (!entries) return;
  for (const entry of entries) if (entry.value) add(identifiers, kind, parseEmail(entry.value));
}

/**
 * A person's identifiers: `linkedin` from the profile URL (or a bare slug), `work_email` and
 * `personal_email` from every address, then `work_email_sha256` and `personal_email_sha256`, the hash of
 * each of those addresses in the same order (src/store/sqlite/schema.ts migration 9 adds them in this
 * order to records stored before), then the person's last name at their current company (see
 * addNamesAtCompany). Values that do not normalise are skipped, never thrown.
 * @example personIdentifiers({ id: 'fp1', linkedin: 'https://www.linkedin.com/in/Jane-Doe' })
 * // [{ kind: 'linkedin', value: 'jane-doe' }]
 */
export function personIdentifiers(person: Person): Identifier[] {
  const identifiers: Identifier[] = [];
  if (person.linkedin) add(identifiers, 'linkedin', parseLinkedinUrlOrSlug(person.linkedin, 'person'));
  addEmails(identifiers, 'work_email', person.emails?.work);
  addEmails(identifiers, 'personal_email', person.emails?.personal);
  const plain = identifiers.length;
  for (const kind of ['work_email', 'personal_email'] as const) {
    // Distinct addresses of a kind have distinct hashes: no repeat to skip.
    for (let i = 0; i < plain; i++) {
      const { kind: k, value } = identifiers[i]!;
      if (k === kind) identifiers.push({ kind: HASHED_KIND[kind], value: emailSha256(value) });
    }
  }
  addNamesAtCompany(identifiers, person);
  return identifiers;
}

/**
 * Only the name-at-company identifiers of a person, in personIdentifiers' order: what SQLite migration 11
 * and PostgreSQL migration 9 add to records stored before them.
 */
export function namesAtCompany(person: Person): Identifier[] {
  const identifiers: Identifier[] = [];
  addNamesAtCompany(identifiers, person);
  return identifiers;
}

/** A person's own name: first and last name when both are given, else their full name split. */
export function personNameParts(
  person: Pick<Person, 'name' | 'first_name' | 'last_name'>,
): NameParts | undefined {
  if (person.first_name && person.last_name) {
    const parts = nameParts(person.first_name, person.last_name);
    if (parts) return parts;
  }
  return person.name ? splitFullName(person.name) : undefined;
}

/**
 * The domain a name-and-company match keys a company's website by: its registrable domain (acme.com.au for
 * shop.acme.com.au), or the host itself when it has none.
 */
export function companyDomainKey(website: string): Normalised {
  const host = parseHost(website);
  return host.ok ? accept(registrableDomain(host.value) ?? host.value) : host;
}

/**
 * Each last-name key of the person at each way of naming their current company (id, website domain,
 * LinkedIn slug, folded name): what a name-and-company match reads (src/lookup/name-match.ts).
 */
function addNamesAtCompany(identifiers: Identifier[], person: Person): void {
  const company = person.current_company;
  if (!company) return;
  const parts = personNameParts(person);
  if (!parts) return;
  const companyKeys: Array<[IdentifierKind, Normalised]> = [];
  if (company.id) companyKeys.push(['name_at_company_id', accept(company.id)]);
  if (company.website) companyKeys.push(['name_at_domain', companyDomainKey(company.website)]);
  if (company.linkedin) {
    companyKeys.push(['name_at_linkedin', parseLinkedinUrlOrSlug(company.linkedin, 'company')]);
  }
  const name = company.name ? companyNameKey(company.name) : undefined;
  if (name) companyKeys.push(['name_at_company_name', accept(name)]);
  for (const [kind, key] of companyKeys) {
    if (!key.ok) continue;
    for (const last of parts.last) add(identifiers, kind, accept(nameAtCompany(key.value, last)));
  }
}

/**
 * A company's identifiers: `linkedin` from the slug (or a company URL), `domain` from `fqdn` and
 * the host of `website`, `abn` from `industry_codes.abn` when it is a valid ABN. Values that do not
 * normalise are skipped, never thrown.
 * @example companyIdentifiers({ id: 'f1', fqdn: 'acme.com.au', website: 'https://www.acme.com.au/' })
 * // [{ kind: 'domain', value: 'acme.com.au' }]
 */
export function companyIdentifiers(company: Company): Identifier[] {
  const identifiers: Identifier[] = [];
  if (company.linkedin) add(identifiers, 'linkedin', parseLinkedinUrlOrSlug(company.linkedin, 'company'));
  if (company.fqdn) add(identifiers, 'domain', parseHost(company.fqdn));
  if (company.website) add(identifiers, 'domain', parseHost(company.website));
  const abn = company.industry_codes?.abn;
  if (abn) add(identifiers, 'abn', parseAbn(abn));
  return identifiers;
}
