// The search tables' columns and the rules both backends fill them by: one list of columns, one country rule.
import type { Entity } from '../../vocabulary/entities.js';
import { COUNTRIES, type Country } from '../../vocabulary/places.js';
import type { CompanyFacts, PersonFacts } from '../search-facts.js';

/** A column of a search table filled from a record's facts, and its PostgreSQL type. */
type FactColumn<Facts> = readonly [name: keyof Facts & string, type: string];

/** A person's search columns (src/store/search-facts.ts), in the order the tables hold them. */
export const PERSON_COLUMNS: ReadonlyArray<FactColumn<PersonFacts>> = [
  ['company_id', 'text'],
  ['seniority', 'smallint'],
  ['department', 'smallint'],
  ['location_country', 'text'],
  ['state', 'text'],
  ['position', 'text'],
  ['name', 'text'],
  ['headline', 'text'],
  ['skills', 'text'],
  ['skill_keys', 'text'],
  ['location', 'text'],
];

/** A company's search columns, in the order the tables hold them. */
export const COMPANY_COLUMNS: ReadonlyArray<FactColumn<CompanyFacts>> = [
  ['country', 'text'],
  ['states', 'text'],
  ['industries', 'text'],
  ['technologies', 'text'],
  ['size', 'text'],
  ['revenue', 'text'],
  ['year_founded', 'int'],
  ['name', 'text'],
  ['description', 'text'],
  ['keywords', 'text'],
];

export const columnNames = (columns: ReadonlyArray<readonly [string, string]>) =>
  columns.map(([name]) => name);

/**
 * The columns `q` looks in and ranks by, in order. Their words one after another are a row's text:
 * SQLite's FTS5 index holds it, PostgreSQL's search tables keep it in a generated column.
 */
export const TEXT_FIELDS: Readonly<Record<Entity, readonly string[]>> = {
  people: ['name', 'position', 'headline', 'skills'],
  companies: ['name', 'description', 'keywords'],
};

/**
 * A person's country is their location's, else their current company's when it is one the people search
 * knows (AU or NZ; any other gives them none). Written here once: as the country a company's people take,
 * and as the same in SQL over a row `company` of the companies' search table.
 */
export const employeesCountry = (country: string | undefined): Country | null =>
  COUNTRIES.find((known) => known === country) ?? null;

export const employeesCountrySql = (company: string) =>
  `CASE WHEN ${company}.country IN (${COUNTRIES.map((c) => `'${c}'`).join(', ')}) THEN ${company}.country END`;
