// The deployed people search's query string (POST /people/search?…): its parameters to a store search.
import { ProblemError } from '../errors.js';
import { MAX_SIZE } from '../schemas/search.js';
import type { PeopleFilters, SearchQuery } from '../store/search.js';
import { TOTAL_CAP } from '../store/search.js';
import { COUNTRIES } from '../vocabulary/places.js';
import { integer, invalid, recordId, text, words } from './values.js';
import { withinWindow } from './window.js';

export const COMPATIBLE_PARAMS = [
  'companyId',
  'position',
  'seniority',
  'department',
  'selectedCountry',
  'from',
  'size',
] as const;
export type CompatibleParam = (typeof COMPATIBLE_PARAMS)[number];

/** The parameters that filter: at least one is needed. */
export const COMPATIBLE_FILTERS: readonly CompatibleParam[] = [
  'companyId',
  'position',
  'seniority',
  'department',
  'selectedCountry',
];

export const DEFAULT_SIZE = 10;

/** What a compatible search asks of the store, and the filters it used (audited by name). */
export interface CompatibleSearch {
  query: SearchQuery<PeopleFilters>;
  params: CompatibleParam[];
}

function country(value: unknown): string {
  const code = text('selectedCountry', value).trim().toUpperCase();
  if (!(COUNTRIES as readonly string[]).includes(code)) {
    throw invalid('selectedCountry', `selectedCountry must be one of ${COUNTRIES.join(', ')}.`);
  }
  return code;
}

/** Each accepted parameter's value as given once; an unknown or repeated one is a 400. */
function given(query: Record<string, unknown>): Partial<Record<CompatibleParam, unknown>> {
  for (const name of Object.keys(query)) {
    if (!(COMPATIBLE_PARAMS as readonly string[]).includes(name)) {
      throw new ProblemError(
        'unknown_parameter',
        `Unknown parameter "${name.slice(0, 64)}"; accepted: ${COMPATIBLE_PARAMS.join(', ')}.`,
        { parameter: name.slice(0, 64), accepted: COMPATIBLE_PARAMS },
      );
    }
    if (Array.isArray(query[name])) throw invalid(name, `${name} is given more than once.`);
  }
  return query as Partial<Record<CompatibleParam, unknown>>;
}

/**
 * Parses the query string of `POST /people/search` (contract §1: seniority 1–7 and department 1–17 as
 * ids, selectedCountry AU or NZ; from ≥ 0, size 1–100): at least one filter, every value valid.
 * @example parseCompatibleSearch({ seniority: '5', selectedCountry: 'AU' }).query.filters
 * // { seniorities: [5], countries: ['AU'] }
 */
export function parseCompatibleSearch(query: Record<string, unknown>): CompatibleSearch {
  const p = given(query);
  const params = COMPATIBLE_FILTERS.filter((name) => p[name] !== undefined);
  if (params.length === 0) {
    throw new ProblemError('missing_filter', `Give at least one filter: ${COMPATIBLE_FILTERS.join(', ')}.`, {
      accepted: COMPATIBLE_FILTERS,
    });
  }
  const filters: PeopleFilters = {};
  if (p.companyId !== undefined) filters.companyIds = [recordId('companyId', p.companyId)];
  if (p.position !== undefined) filters.position = words('position', p.position);
  if (p.seniority !== undefined) filters.seniorities = [integer('seniority', p.seniority, 1, 7)];
  if (p.department !== undefined) filters.departments = [integer('department', p.department, 1, 17)];
  if (p.selectedCountry !== undefined) filters.countries = [country(p.selectedCountry)];
  const from = p.from === undefined ? 0 : integer('from', p.from, 0, TOTAL_CAP);
  const size = p.size === undefined ? DEFAULT_SIZE : integer('size', p.size, 1, MAX_SIZE);
  const limit = withinWindow(from, size, 'from');
  return { query: { filters, start: { offset: from }, limit }, params };
}
