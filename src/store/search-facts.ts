// What search filters and ranks on, derived from a record: the columns of the stores' search tables.
import { departmentId } from '../vocabulary/departments.js';
import { type Country, countryOf, hqCountryKey, regionOf, stateKey } from '../vocabulary/places.js';
import { isRecordId } from '../vocabulary/record-id.js';
import { seniorityId } from '../vocabulary/seniorities.js';
import { compactLabel, searchWords, storedWords } from '../vocabulary/words.js';

/** A person's derived search columns. Word columns hold `storedWords`; key lists are `|a|b|`. */
export interface PersonFacts {
  company_id: string | null;
  seniority: number | null;
  department: number | null;
  /** The country the last entry of `location` names, if it names one. */
  location_country: Country | null;
  /** The region the first entry of `location` naming one names (NSW, AUK, …). */
  state: string | null;
  position: string;
  name: string;
  headline: string;
  skills: string;
  /** Each skill's folded words, as `|b2b sales|negotiation|`. */
  skill_keys: string;
  location: string;
}

/** The search columns of a record of either entity. */
export type SearchFacts = PersonFacts | CompanyFacts;

/** A company's derived search columns. */
export interface CompanyFacts {
  /** `hqCountryKey` of `hq_country`: AU, NZ, another country's folded name, or ''. */
  country: string;
  states: string;
  industries: string;
  technologies: string;
  size: string;
  revenue: string;
  year_founded: number | null;
  name: string;
  description: string;
  keywords: string;
}

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** A list of values as `|a|b|` (each once, in order; empty ones left out), or '' when there is none. */
export function keyList(values: readonly string[]): string {
  const keys = [...new Set(values.filter((v) => v !== ''))];
  return keys.length === 0 ? '' : `|${keys.join('|')}|`;
}

/**
 * A person's country: the last entry of `location` when it names one (Australia, New Zealand, AU, NZ);
 * otherwise, for search, the `hq_country` of their current company when that company is on file
 * (the stores join that in, as companies come and go).
 */
export function locationCountry(location: unknown): Country | null {
  const entries = strings(location);
  return countryOf(entries.at(-1)) ?? null;
}

/**
 * The most UTF-8 bytes of a person's position as the search keeps it (whole words, the rest left out): it
 * is a key of PostgreSQL's B-tree on (position, id), whose entries hold at most 2,704 bytes. Real
 * positions hold a few dozen.
 */
export const MAX_POSITION_BYTES = 1024;

/**
 * The search columns of a person record (any JSON: fields of the wrong type count as absent). A current
 * company id that is not a record id is none: it names no company, and would be a B-tree key of any size.
 */
export function personFacts(person: Json): PersonFacts {
  const seniority = asString(person.seniority);
  const department = asString(person.department);
  const skills = strings(person.skills);
  const location = strings(person.location);
  const companyId = asString(asObject(person.current_company)?.id);
  return {
    company_id: companyId !== undefined && isRecordId(companyId) ? companyId : null,
    seniority: seniority === undefined ? null : (seniorityId(seniority) ?? null),
    department: department === undefined ? null : (departmentId(department) ?? null),
    location_country: locationCountry(location),
    state: location.map(regionOf).find((code) => code !== undefined) ?? null,
    position: storedWords(asString(person.position), MAX_POSITION_BYTES),
    name: storedWords(asString(person.name)),
    headline: storedWords(asString(person.headline)),
    skills: storedWords(skills.join(' ')),
    skill_keys: keyList(skills.map(searchWords)),
    location: storedWords(location.join(' ')),
  };
}

/** Every technology name in `nextGen.technographics`, whatever its category. */
function technologies(company: Json): string[] {
  const technographics = asObject(asObject(company.nextGen)?.technographics) ?? {};
  return Object.values(technographics).flatMap(strings);
}

/** The search columns of a company record (any JSON: fields of the wrong type count as absent). */
export function companyFacts(company: Json): CompanyFacts {
  const size = asString(company.company_size);
  const revenue = asString(company.revenue);
  const founded = company.year_founded;
  return {
    country: hqCountryKey(company.hq_country),
    states: keyList(strings(company.states).map(stateKey)),
    industries: keyList(strings(company.industries).map(searchWords)),
    technologies: keyList(technologies(company).map(searchWords)),
    size: size === undefined ? '' : compactLabel(size),
    revenue: revenue === undefined ? '' : compactLabel(revenue),
    year_founded: Number.isSafeInteger(founded) ? (founded as number) : null,
    name: storedWords(asString(company.name)),
    description: storedWords(asString(company.description)),
    keywords: storedWords(strings(company.keywords).join(' ')),
  };
}

/** The search columns of a record body of either entity; a body that is not a JSON object has none. */
export function factsOf(entity: 'people', body: string): PersonFacts;
export function factsOf(entity: 'companies', body: string): CompanyFacts;
export function factsOf(entity: 'people' | 'companies', body: string): PersonFacts | CompanyFacts;
export function factsOf(entity: 'people' | 'companies', body: string): PersonFacts | CompanyFacts {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = {};
  }
  const record = asObject(parsed) ?? {};
  return entity === 'people' ? personFacts(record) : companyFacts(record);
}
