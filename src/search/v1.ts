// The bodies of POST /v1/people/search and /v1/company/search: filters, q, size, cursor and fields.
import { ProblemError } from '../errors.js';
import { parseHost, registrableDomain } from '../identifiers/domain.js';
import { COMPANY_PREVIEW_FIELDS, MAX_SIZE, MAX_YEAR, PERSON_PREVIEW_FIELDS } from '../schemas/search.js';
import type { CompanyFilters, PeopleFilters, SearchQuery } from '../store/search.js';
import { countryOf, hqCountryKey, stateKey } from '../vocabulary/places.js';
import { compactLabel, searchWords } from '../vocabulary/words.js';
import { DEFAULT_SIZE } from './compatible.js';
import { decodeCursor } from './cursor.js';
import { parseFields } from './fields.js';
import { department, integer, invalid, recordId, seniority, text, valuesOf, words } from './values.js';
import { withinWindow } from './window.js';

export const BODY_MEMBERS = ['filters', 'q', 'size', 'cursor', 'fields'] as const;
export const PEOPLE_FILTERS = [
  'company_id',
  'company_domain',
  'seniority',
  'department',
  'country',
  'state',
  'location',
  'skills',
] as const;
export const COMPANY_FILTERS = [
  'industry',
  'company_size',
  'state',
  'country',
  'technology',
  'revenue',
  'year_founded',
] as const;

/** A website or domain as the company lookup takes it: the host, and its registrable domain to fall back on. */
export interface CompanyDomain {
  host: string;
  fallback?: string;
}

export interface V1Search<F> {
  query: SearchQuery<F>;
  /** Results the query served before this page (its cursor says): the page's place in the window. */
  served: number;
  /** Filter names used, `q` included: what the audit log keeps. */
  params: string[];
  fields: string[] | undefined;
}

export interface V1PeopleSearch extends V1Search<PeopleFilters> {
  /** `company_domain`'s values, for the route to resolve to company ids as a lookup would. */
  domains: CompanyDomain[] | undefined;
}

type Json = Record<string, unknown>;

const unknown = (parameter: string, accepted: readonly string[]) =>
  new ProblemError(
    'unknown_parameter',
    `Unknown parameter "${parameter.slice(0, 64)}"; accepted: ${accepted.join(', ')}.`,
    { parameter: parameter.slice(0, 64), accepted },
  );

function objectOf(parameter: string, value: unknown): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(parameter, `${parameter} must be a JSON object.`);
  }
  return value as Json;
}

/** Checks a JSON object's members against the accepted names. */
function members(parameter: string, value: unknown, accepted: readonly string[], prefix = ''): Json {
  const object = objectOf(parameter, value);
  for (const name of Object.keys(object)) {
    if (!accepted.includes(name))
      throw unknown(
        `${prefix}${name}`,
        accepted.map((a) => `${prefix}${a}`),
      );
  }
  return object;
}

/** The shortest word of `q` searched for: a single letter starts too many words to be worth ranking. */
export const MIN_WORD_LENGTH = 2;

/**
 * `q`'s words, those of a single character left out (as a search engine leaves out stop words); a 400
 * when none is left and no filter narrows the search.
 */
function freeText(given: unknown, filtered: boolean): string[] | undefined {
  const all = words('q', given);
  const kept = all.filter((word) => word.length >= MIN_WORD_LENGTH);
  if (kept.length > 0) return kept;
  if (filtered) return undefined;
  throw invalid(
    'q',
    `q needs a word of ${MIN_WORD_LENGTH} or more characters (single letters are left out).`,
  );
}

/** The body's common members; its filters, checked against the entity's filter names. */
function common(body: unknown, filterNames: readonly string[]) {
  const b = members('body', body ?? {}, BODY_MEMBERS);
  const filters = members('filters', b.filters ?? {}, filterNames, 'filters.');
  const used = filterNames.filter((name) => filters[name] !== undefined);
  if (used.length === 0 && b.q === undefined) {
    throw new ProblemError('missing_filter', `Give q or at least one filter: ${filterNames.join(', ')}.`, {
      accepted: [...filterNames.map((name) => `filters.${name}`), 'q'],
    });
  }
  const q = b.q === undefined ? undefined : freeText(b.q, used.length > 0);
  const size = b.size === undefined ? DEFAULT_SIZE : integer('size', b.size, 1, MAX_SIZE);
  const cursor = b.cursor === undefined ? undefined : decodeCursor(text('cursor', b.cursor));
  const served = cursor?.served ?? 0;
  const query = {
    ...(q ? { q } : {}),
    ...(cursor ? { start: { after: { rank: cursor.rank, id: cursor.id } } } : {}),
    limit: withinWindow(served, size, 'cursor'),
  };
  return { b, filters, query, served, params: [...used, ...(q ? ['q'] : [])] };
}

/** Each value of a filter (a value or a list), parsed by `parse` with the filter's name. */
function each<T>(filters: Json, name: string, parse: (parameter: string, value: unknown) => T) {
  const given = filters[name];
  if (given === undefined) return undefined;
  const parameter = `filters.${name}`;
  return valuesOf(parameter, given).map((value) => parse(parameter, value));
}

/** A whole value's folded words, as facts.ts keeps list members (a skill, an industry). */
function folded(parameter: string, value: unknown): string {
  const all = searchWords(text(parameter, value));
  if (all === '') throw invalid(parameter, `${parameter} holds no word (no letter or digit).`);
  return all;
}
const label = (parameter: string, value: unknown) => compactLabel(text(parameter, value));

function personCountry(parameter: string, value: unknown): string {
  const code = countryOf(text(parameter, value));
  if (code === undefined) throw invalid(parameter, `${parameter} must name AU or NZ.`);
  return code;
}

function domain(parameter: string, value: unknown): CompanyDomain {
  const parsed = parseHost(text(parameter, value));
  if (!parsed.ok) throw invalid(parameter, `${parameter}: ${parsed.reason}`);
  const fallback = registrableDomain(parsed.value);
  return fallback && fallback !== parsed.value ? { host: parsed.value, fallback } : { host: parsed.value };
}

/** Drops filters left undefined, so that a query holds only what was asked. */
const defined = <T extends object>(object: T): T =>
  Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;

/** Parses the body of `POST /v1/people/search`. */
export function parsePeopleSearch(body: unknown): V1PeopleSearch {
  const { b, filters: f, query, served, params } = common(body, PEOPLE_FILTERS);
  const filters: PeopleFilters = defined({
    companyIds: each(f, 'company_id', recordId),
    seniorities: each(f, 'seniority', seniority),
    departments: each(f, 'department', department),
    countries: each(f, 'country', personCountry),
    states: each(f, 'state', (p, v) => stateKey(text(p, v))),
    locations: each(f, 'location', words),
    skills: each(f, 'skills', folded),
  });
  const domains = each(f, 'company_domain', domain);
  const fields = parseFields(b.fields, PERSON_PREVIEW_FIELDS);
  return { query: { ...query, filters }, served, params, fields, domains };
}

function years(value: unknown): CompanyFilters['yearFounded'] {
  const range = members('filters.year_founded', value, ['gte', 'lte'], 'filters.year_founded.');
  const bound = (name: 'gte' | 'lte') =>
    range[name] === undefined
      ? undefined
      : integer(`filters.year_founded.${name}`, range[name], -MAX_YEAR, MAX_YEAR);
  const out = defined({ gte: bound('gte'), lte: bound('lte') });
  if (out.gte === undefined && out.lte === undefined) {
    throw invalid('filters.year_founded', 'filters.year_founded needs gte, lte or both.');
  }
  return out;
}

/** Parses the body of `POST /v1/company/search`. */
export function parseCompanySearch(body: unknown): V1Search<CompanyFilters> {
  const { b, filters: f, query, served, params } = common(body, COMPANY_FILTERS);
  const filters: CompanyFilters = defined({
    industries: each(f, 'industry', folded),
    sizes: each(f, 'company_size', label),
    states: each(f, 'state', (p, v) => stateKey(text(p, v))),
    countries: each(f, 'country', (p, v) => hqCountryKey(text(p, v))),
    technologies: each(f, 'technology', folded),
    revenues: each(f, 'revenue', label),
    yearFounded: f.year_founded === undefined ? undefined : years(f.year_founded),
  });
  const fields = parseFields(b.fields, COMPANY_PREVIEW_FIELDS);
  return { query: { ...query, filters }, served, params, fields };
}
