// A search from request to answer, without HTTP: parse, resolve what needs the store, search, preview.

import type { RecordStore } from '../store/records.js';
import type { PeopleFilters, SearchPage, SearchQuery, SearchStore, SearchTotal } from '../store/search.js';
import {
  type CompanyPreview,
  type PersonPreview,
  type PersonPreviewV1,
  type PreviewOf,
  previewOf,
} from '../store/search-preview.js';
import { parseCompatibleSearch } from './compatible.js';
import { encodeCursor } from './cursor.js';
import { project } from './fields.js';
import { type CompanyDomain, parseCompanySearch, parsePeopleSearch } from './v1.js';

/** What a search answered: the body to send, the ids it disclosed, and the filters used. */
export interface Answered<T> {
  body: T;
  ids: string[];
  params: string[];
}

export interface CompatibleAnswer {
  previews: PersonPreview[];
  total: SearchTotal;
}

/**
 * `POST /people/search`: previews of the page `from`/`size` asked for (at most `allowed`: what the key's
 * search allowance has left), and the total.
 */
export async function compatibleSearch(
  store: SearchStore & RecordStore,
  queryString: Record<string, unknown>,
  allowed = Number.POSITIVE_INFINITY,
): Promise<Answered<CompatibleAnswer>> {
  const { query, params } = parseCompatibleSearch(queryString);
  const limit = Math.min(query.limit, allowed);
  const { total, hits } = await store.searchPeople({ ...query, limit, preview: 'person' });
  const previews = hits.map((hit) => previewOf('person', hit));
  return { body: { previews, total }, ids: hits.map((hit) => hit.id), params };
}

/** A `/v1` page: the total, the results, and the cursor of the next page (null on the last). */
export interface V1Page<T extends object> {
  total: SearchTotal;
  results: Array<Partial<T>>;
  next: string | null;
}

/** Where a `/v1` page sits: results its query served before it, and at most how many it may hold. */
interface PageBounds {
  served: number;
  /** What the key's search allowance has left (unbounded without one). */
  allowed: number;
}

/**
 * Asks for one result more than the page holds: its presence says whether there is a next page, whose
 * cursor counts the results served so far (the search window).
 */
async function pageOf<K extends 'personV1' | 'company'>(
  search: (query: SearchQuery<never>) => Promise<SearchPage>,
  query: SearchQuery<never>,
  bounds: PageBounds,
  preview: K,
  fields: string[] | undefined,
): Promise<{ page: V1Page<PreviewOf<K>>; ids: string[] }> {
  const limit = Math.min(query.limit, bounds.allowed);
  const { total, hits } = await search({ ...query, limit: limit + 1, preview });
  const kept = hits.slice(0, limit);
  const last = kept.at(-1);
  const served = bounds.served + kept.length;
  const next = hits.length > limit && last ? encodeCursor({ rank: last.rank, id: last.id, served }) : null;
  const results = kept.map((hit) => project(previewOf(preview, hit), fields));
  return { page: { total, results, next }, ids: kept.map((hit) => hit.id) };
}

/**
 * The companies `company_domain` names, found as a company lookup by `website` finds them: by the host,
 * else by its registrable domain.
 */
async function companiesAt(store: SearchStore & RecordStore, domains: CompanyDomain[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const { host, fallback } of domains) {
    let found = await store.findIds('companies', 'domain', host, 100);
    if (found.length === 0 && fallback) found = await store.findIds('companies', 'domain', fallback, 100);
    for (const id of found) ids.add(id);
  }
  return [...ids];
}

/** `company_id` and `company_domain` both hold: the ids both allow. */
function withDomains(filters: PeopleFilters, atDomains: string[]): PeopleFilters {
  const byId = filters.companyIds;
  const companyIds = byId ? byId.filter((id) => atDomains.includes(id)) : atDomains;
  return { ...filters, companyIds };
}

const EMPTY_PAGE: SearchPage = { total: { value: 0, relation: 'eq' }, hits: [] };

export async function peopleSearchV1(
  store: SearchStore & RecordStore,
  body: unknown,
  allowed = Number.POSITIVE_INFINITY,
): Promise<Answered<V1Page<PersonPreviewV1>>> {
  const { query, served, params, fields, domains } = parsePeopleSearch(body);
  let filters = query.filters;
  if (domains) filters = withDomains(filters, await companiesAt(store, domains));
  // A domain that names no company matches nobody: no query is needed to say so.
  const search = (q: SearchQuery<never>) =>
    filters.companyIds?.length === 0 ? Promise.resolve(EMPTY_PAGE) : store.searchPeople({ ...q, filters });
  const { page, ids } = await pageOf(
    search,
    query as SearchQuery<never>,
    { served, allowed },
    'personV1',
    fields,
  );
  return { body: page, ids, params };
}

export async function companySearchV1(
  store: SearchStore & RecordStore,
  body: unknown,
  allowed = Number.POSITIVE_INFINITY,
): Promise<Answered<V1Page<CompanyPreview>>> {
  const { query, served, params, fields } = parseCompanySearch(body);
  const { page, ids } = await pageOf(
    (q) => store.searchCompanies({ ...q, filters: query.filters }),
    query as SearchQuery<never>,
    { served, allowed },
    'company',
    fields,
  );
  return { body: page, ids, params };
}
