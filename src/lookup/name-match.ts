// Matching a person by name and company: the parameters parsed, the few namesakes at the company read in one
// indexed read, each scored by how well their first name matches, and one record chosen — or 404, or 409.
import { ProblemError } from '../errors.js';
import { fitsInBytes, MAX_IDENTIFIER_BYTES, TOO_MANY_BYTES } from '../identifiers/key-bytes.js';
import { parseLinkedinUrlOrSlug } from '../identifiers/linkedin.js';
import type { Normalised } from '../identifiers/normalised.js';
import { accept, reject } from '../identifiers/normalised.js';
import {
  companyNameKey,
  firstNameKey,
  type NameParts,
  nameAtCompany,
  nameParts,
  splitFullName,
} from '../identifiers/person-name.js';
import { companyDomainKey, personNameParts } from '../identifiers/record.js';
import { sameNameShortened } from '../identifiers/short-forms.js';
import type { Person } from '../schemas/person.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { RecordStore, ServedRecord } from '../store/records.js';
import type { NameAtCompanyKind } from '../vocabulary/entities.js';
import { isRecordId } from '../vocabulary/record-id.js';

export const NAME_PARAMS = ['name', 'first_name', 'last_name'] as const;
export const COMPANY_PARAMS_OF_NAME = [
  'company_id',
  'company_domain',
  'company_ln_slug',
  'company_name',
] as const;
export const MIN_LIKELIHOOD_PARAM = 'min_likelihood';
/** What `/people` accepts besides its identifiers, to match a person by name and company. */
export const NAME_MATCH_PARAMS = [...NAME_PARAMS, ...COMPANY_PARAMS_OF_NAME, MIN_LIKELIHOOD_PARAM] as const;
export type NameMatchParam = (typeof NAME_MATCH_PARAMS)[number];
type CompanyParamOfName = (typeof COMPANY_PARAMS_OF_NAME)[number];

/** Matches weaker than this are not answered unless `min_likelihood` says otherwise. */
export const DEFAULT_MIN_LIKELIHOOD = 6;
/** Namesakes (same last name at the company) read per key: more than any real company has. */
export const MAX_CANDIDATES = 50;
/** Companies a domain or LinkedIn slug may name when the people's records do not carry it themselves. */
const MAX_COMPANIES = 5;

/** A name-and-company match asked for: the name folded, the company's key, and the bar. */
export interface NameMatch {
  first: string;
  /** The last-name key read. */
  last: string;
  company: { param: CompanyParamOfName; kind: NameAtCompanyKind; value: string };
  minLikelihood: number;
  /** The parameters the match uses, in the order accepted: what `Enrich-Matched-By` names. */
  params: string[];
}

const KIND_OF: Record<CompanyParamOfName, NameAtCompanyKind> = {
  company_id: 'name_at_company_id',
  company_domain: 'name_at_domain',
  company_ln_slug: 'name_at_linkedin',
  company_name: 'name_at_company_name',
};

const invalid = (parameter: string, detail: string) =>
  new ProblemError('invalid_parameter', detail, { parameter });

function companyKey(param: CompanyParamOfName, raw: string): Normalised {
  switch (param) {
    case 'company_id':
      return isRecordId(raw.trim())
        ? accept(raw.trim())
        : reject('not a record id (1 to 64 letters, digits, _ or -)');
    case 'company_domain':
      return companyDomainKey(raw);
    case 'company_ln_slug':
      // A company page's URL is taken too: a list's "Company LinkedIn" column holds either.
      return parseLinkedinUrlOrSlug(raw, 'company');
    case 'company_name': {
      const key = companyNameKey(raw);
      return key ? accept(key) : reject('has no letter or digit');
    }
  }
}

function parseMinLikelihood(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MIN_LIKELIHOOD;
  const value = raw.trim();
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 10) {
    throw invalid(MIN_LIKELIHOOD_PARAM, 'min_likelihood must be a whole number from 1 to 10.');
  }
  return Number(value);
}

function personName(given: Partial<Record<NameMatchParam, string>>): NameParts {
  const { name, first_name: first, last_name: last } = given;
  if (name !== undefined && (first !== undefined || last !== undefined)) {
    throw invalid('name', 'Give either name, or first_name and last_name, not both.');
  }
  if (name !== undefined) {
    const parts = splitFullName(name);
    if (!parts) throw invalid('name', 'name needs a first and a last name.');
    return parts;
  }
  if (first === undefined) throw invalid('last_name', 'last_name needs first_name.');
  if (last === undefined) throw invalid('first_name', 'first_name needs last_name.');
  const parts = nameParts(first, last);
  if (!parts) throw invalid('first_name', 'first_name and last_name need a letter or digit each.');
  return parts;
}

/**
 * The name match that the given parameters ask for, or undefined when they name none. Throws the 400 of an
 * incomplete or contradictory one: a name without a company (never matched across companies), a company
 * or `min_likelihood` without a name, two companies, half a name.
 * @example parseNameMatch({ name: 'Jane Citizen', company_domain: 'acme.com.au' })
 * // { first: 'jane', last: 'citizen', company: { param: 'company_domain', kind: 'name_at_domain', value: 'acme.com.au' }, … }
 */
export function parseNameMatch(given: Partial<Record<NameMatchParam, string>>): NameMatch | undefined {
  const names = NAME_PARAMS.filter((p) => given[p] !== undefined);
  const companies = COMPANY_PARAMS_OF_NAME.filter((p) => given[p] !== undefined);
  const minGiven = given.min_likelihood !== undefined;
  if (names.length === 0) {
    if (companies.length > 0) {
      throw invalid(
        companies[0]!,
        `${companies[0]} is used only to match a name: give name, or first_name and last_name, with it.`,
      );
    }
    if (minGiven)
      throw invalid(MIN_LIKELIHOOD_PARAM, 'min_likelihood applies only to a match by name and company.');
    return undefined;
  }
  const parts = personName(given);
  if (companies.length === 0) {
    throw invalid(
      names[0]!,
      `A name is matched only within a company: give one of ${COMPANY_PARAMS_OF_NAME.join(', ')} with it.`,
    );
  }
  if (companies.length > 1) {
    throw invalid(companies[1]!, `Give one company (${COMPANY_PARAMS_OF_NAME.join(', ')}), not several.`);
  }
  const param = companies[0]!;
  const key = companyKey(param, given[param]!);
  if (!key.ok) throw invalid(param, `${param}: ${key.reason}`);
  const last = parts.last[0]!;
  if (!fitsInBytes(nameAtCompany(key.value, last), MAX_IDENTIFIER_BYTES)) {
    throw new ProblemError('invalid_parameter', `${names.at(-1)} and ${param} together: ${TOO_MANY_BYTES}.`, {
      parameter: param,
      max_bytes: MAX_IDENTIFIER_BYTES,
    });
  }
  return {
    first: parts.first,
    last,
    company: { param, kind: KIND_OF[param], value: key.value },
    minLikelihood: parseMinLikelihood(given.min_likelihood),
    params: [...names, param],
  };
}

/** How likely a first name given is the one on record, at a company named strongly (id, domain, LinkedIn). */
const EXACT = 10;
const SHORT_FORM = 8;
const INITIAL = 7;
/** What naming the company by its name (which several companies may share) takes off. */
const BY_COMPANY_NAME = 2;

/**
 * How likely (1–10) a person on record is the one asked for, whose last name and company already match:
 * 10 for the same first name, 8 for a short form of it (Bob, Robert), 7 for an initial (J, James), each 2
 * less when the company was given by name; 0 when the first names differ.
 * @example nameLikelihood('bob', 'robert', false) // 8
 */
export function nameLikelihood(asked: string, onRecord: string, byCompanyName: boolean): number {
  let score = 0;
  if (asked === onRecord) score = EXACT;
  else if (sameNameShortened(asked, onRecord)) score = SHORT_FORM;
  else if ((asked.length === 1 || onRecord.length === 1) && asked[0] === onRecord[0]) score = INITIAL;
  if (score === 0) return 0;
  return byCompanyName ? score - BY_COMPANY_NAME : score;
}

/** The match chosen: the record and how likely it is the one asked for. */
export interface NameMatched {
  record: ServedRecord;
  likelihood: number;
}

const FIRST_NAME_MEMBER = '"first_name":';
const LAST_NAME_MEMBER = '"last_name":';
const QUOTE = 34;
const BACKSLASH = 92;

/**
 * A top-level string member of a person's stored JSON, read without parsing the whole record (only a
 * person's top level has `first_name` and `last_name`); undefined when absent, not a string, or written with
 * a space before its colon (the caller then parses the record).
 */
function stringMember(body: Buffer | string, member: string): string | undefined {
  let at = body.indexOf(member);
  if (at < 0) return undefined;
  at += member.length;
  const code =
    typeof body === 'string' ? (i: number) => body.charCodeAt(i) : (i: number) => body[i] ?? Number.NaN;
  let c = code(at);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = code(++at);
  if (c !== QUOTE) return undefined;
  let escaped = false;
  for (let end = at + 1; end < body.length; end++) {
    const e = code(end);
    if (e === BACKSLASH) escaped = true;
    else if (e === QUOTE) {
      const text = typeof body === 'string' ? body.slice(at, end + 1) : body.toString('utf8', at, end + 1);
      return escaped ? (JSON.parse(text) as string) : text.slice(1, -1);
    }
    if (e === BACKSLASH) end++; // the escaped character is never the closing quote
  }
  return undefined;
}

/** The folded first name on a record: from its first name when it has a last name too, else its full name. */
function firstNameOnRecord(record: ServedRecord): string | undefined {
  const first = stringMember(record.body, FIRST_NAME_MEMBER);
  if (first && stringMember(record.body, LAST_NAME_MEMBER)) {
    const key = firstNameKey(first);
    if (key !== undefined) return key;
  }
  const body = typeof record.body === 'string' ? record.body : record.body.toString('utf8');
  return personNameParts(JSON.parse(body) as Person)?.first;
}

/**
 * The best-scoring candidate, or the problem: `not_found` when none scores `minLikelihood` or more,
 * `ambiguous_match` listing every candidate that scores as well as the best.
 */
export function chooseCandidate(match: NameMatch, candidates: ServedRecord[]): NameMatched {
  const byCompanyName = match.company.param === 'company_name';
  let best: NameMatched[] = [];
  const seen = new Set<string>();
  for (const record of candidates) {
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    const first = firstNameOnRecord(record);
    const likelihood = first === undefined ? 0 : nameLikelihood(match.first, first, byCompanyName);
    if (likelihood === 0 || likelihood < match.minLikelihood) continue;
    if (best.length === 0 || likelihood > best[0]!.likelihood) best = [{ record, likelihood }];
    else if (likelihood === best[0]!.likelihood) best.push({ record, likelihood });
  }
  if (best.length === 0) {
    throw new ProblemError(
      'not_found',
      `No person at that company matches the name with a likelihood of ${match.minLikelihood} or more.`,
    );
  }
  if (best.length > 1) {
    const ids = best.map((b) => b.record.id).sort();
    throw new ProblemError(
      'ambiguous_match',
      `${ids.length} people at that company match the name equally well (likelihood ${best[0]!.likelihood}); give an identifier that names one.`,
      { matches: { [match.params[0]!]: ids.slice(0, 10) } },
    );
  }
  return best[0]!;
}

const key = (match: NameMatch, company: string) => nameAtCompany(company, match.last);

/**
 * The namesakes at a company given by domain or LinkedIn slug whose records do not carry it themselves:
 * found through the companies it names (their ids on people's current_company).
 */
function throughCompanies(store: RecordStore, match: NameMatch): MaybePromise<ServedRecord[]> {
  const { param, value } = match.company;
  const byDomain = param === 'company_domain';
  const companies = store.findRecords('companies', byDomain ? 'domain' : 'linkedin', value, MAX_COMPANIES);
  const people = (found: ServedRecord[]): MaybePromise<ServedRecord[]> => {
    const reads = found.map((c) =>
      store.findRecords('people', 'name_at_company_id', key(match, c.id), MAX_CANDIDATES),
    );
    if (!reads.some(isPromise)) return (reads as ServedRecord[][]).flat();
    return Promise.all(reads).then((lists) => lists.flat());
  };
  return isPromise(companies) ? companies.then(people) : people(companies);
}

/**
 * The namesakes asked for: one indexed read of the people carrying the name at the company; for a domain or
 * LinkedIn slug that no record carries, the companies so named, then their people by company id.
 */
function candidates(store: RecordStore, match: NameMatch): MaybePromise<ServedRecord[]> {
  const { kind, value, param } = match.company;
  const direct = store.findRecords('people', kind, key(match, value), MAX_CANDIDATES);
  if (param !== 'company_domain' && param !== 'company_ln_slug') return direct;
  const orCompanies = (found: ServedRecord[]) => (found.length > 0 ? found : throughCompanies(store, match));
  return isPromise(direct) ? direct.then(orCompanies) : orCompanies(direct);
}

/**
 * Matches a person by name and company: their record and likelihood, or throws `not_found` /
 * `ambiguous_match`. Answers at once when the store does (SQLite).
 */
export function matchByName(store: RecordStore, match: NameMatch): MaybePromise<NameMatched> {
  const found = candidates(store, match);
  return isPromise(found) ? found.then((f) => chooseCandidate(match, f)) : chooseCandidate(match, found);
}
