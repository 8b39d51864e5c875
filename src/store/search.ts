// The search role of the store: a search as the stores take it (filters already normalised to the search
// tables' forms, an order, a page) and the page it answers.

/**
 * People filters; each list means any of its values, and every filter given must hold. Word filters
 * hold folded words (text.ts), each to occur as a word or the start of one.
 */
export interface PeopleFilters {
  companyIds?: string[];
  seniorities?: number[];
  departments?: number[];
  /** AU or NZ: the last entry of `location` naming one, else the current company's `hq_country`. */
  countries?: string[];
  /** Region abbreviations (NSW, AUK, …) as `location` names them. */
  states?: string[];
  /** Any of these word lists, each wholly within `location`. */
  locations?: string[][];
  /** Skills by their folded words, whole. */
  skills?: string[];
  /** Every word within `position`. */
  position?: string[];
}

export interface CompanyFilters {
  industries?: string[];
  /** `compactLabel` of `company_size`. */
  sizes?: string[];
  states?: string[];
  /** `hqCountryKey` of `hq_country`. */
  countries?: string[];
  technologies?: string[];
  /** `compactLabel` of `revenue`. */
  revenues?: string[];
  yearFounded?: { gte?: number; lte?: number };
}

/** Where a page starts: after this sort key (keyset), or after skipping this many results. */
export type PageStart = { after: SortKey } | { offset: number };

/** A result's place in the order: rank (0 without `q`) descending, then id ascending. */
export interface SortKey {
  rank: number;
  id: string;
}

/** The previews an answer shows of its results (search-preview.ts makes them). */
export type PreviewKind = 'person' | 'personV1' | 'company';

export interface SearchQuery<F> {
  filters: F;
  /** Free text: every word in one of the entity's text fields; ranks results (see wordScore). */
  q?: string[];
  start?: PageStart;
  limit: number;
  /**
   * The preview the answer will show of each result. A store may then hold each hit's preview rather than
   * its body: a search thread does, so that the bodies it read never cross to the event loop.
   */
  preview?: PreviewKind;
}

/**
 * How many records match: exact up to the cap, then the cap and `gte`; `gte` too, with the matches found,
 * when the search's budget ran out before it had counted them all.
 */
export interface SearchTotal {
  value: number;
  relation: 'eq' | 'gte';
}

/** One result: its record's id and rank, and its stored body or (see `SearchQuery.preview`) its preview. */
export type SearchHit = { id: string; rank: number } & ({ body: string } | { preview: object });

export interface SearchPage {
  total: SearchTotal;
  hits: SearchHit[];
}

/** Totals are counted exactly up to this many matches. */
export const TOTAL_CAP = 10_000;

/**
 * The work one search may do on SQLite, in milliseconds of counting and ranking: past it, the search stops
 * reading and answers from the matches found so far, its total a lower bound (`gte`). A search matching
 * rarely among many candidates (a common word of `q` and a rare filter) would otherwise read them all.
 */
export const SEARCH_BUDGET_MS = 250;

/** The total of a count made with LIMIT TOTAL_CAP + 1. */
export const totalOf = (counted: number): SearchTotal =>
  counted > TOTAL_CAP ? { value: TOTAL_CAP, relation: 'gte' } : { value: counted, relation: 'eq' };

/**
 * Searches of the search tables, which every record write keeps in step (so a search sees what a lookup
 * would). Both stores answer alike: their SQL is written once (./sql/search.ts).
 */
export interface SearchStore {
  /**
   * People matching every filter (and `q`'s words), ordered by id, or by rank then id with `q`, from
   * `query.start`: the page's records (id and stored body) and the total, exact up to TOTAL_CAP.
   */
  searchPeople(query: SearchQuery<PeopleFilters>): Promise<SearchPage>;
  /** Companies matching every filter (and `q`), as `searchPeople`. */
  searchCompanies(query: SearchQuery<CompanyFilters>): Promise<SearchPage>;
}
