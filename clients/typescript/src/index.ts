// @enrich/client: a typed client of the Enrich API (types generated from its OpenAPI document).
export { type CallOptions, Enrich, type EnrichOptions } from './client.js';
export { EnrichError, UNEXPECTED_RESPONSE } from './errors.js';
export type { paths } from './schema.js';
export type {
  Company,
  CompanyQuery,
  CompanySearchPage,
  CompanySearchRequest,
  CompanySearchResult,
  PeopleSearchPage,
  PeopleSearchRequest,
  Person,
  PersonQuery,
  PersonSearchResult,
  Problem,
  ProblemCode,
  Scope,
  Usage,
} from './types.js';
