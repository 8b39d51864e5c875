// The search role on PostgreSQL: the shared SQL (../sql/search.ts), with pg_trgm indexes finding words.
import type pg from 'pg';
import { ProblemError } from '../../errors.js';
import {
  type CompanyFilters,
  type PeopleFilters,
  type SearchPage,
  type SearchQuery,
  type SearchStore,
  totalOf,
} from '../search.js';
import {
  type Dialect,
  type PreparedSearch,
  planHints,
  prepareCompanySearch,
  preparePeopleSearch,
  renderCount,
  renderPage,
  searchTables,
  type TextCondition,
} from '../sql/search.js';
import { choosePlan } from '../sql/search-plan.js';
import { query } from './pool.js';

/** How long one search statement may run before PostgreSQL cancels it (the search pool's statement_timeout). */
export const SEARCH_TIMEOUT_MS = 10_000;

/** PostgreSQL's code for a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

/** The 503 of a search that ran out of time: it is to be narrowed rather than sent again as it is. */
const tooCostly = () =>
  new ProblemError(
    'unavailable',
    `The search took longer than ${SEARCH_TIMEOUT_MS / 1000} s and was stopped: narrow it with filters or longer words.`,
    {},
    { 'retry-after': '2' },
  );

/** Columns with a trigram index: a word condition on them can be a LIKE the index answers. */
const TRIGRAM_INDEXED = new Set(['text']);

/** Words hold letters and digits only, but LIKE's own characters are escaped all the same. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * PostgreSQL's spelling: numbered parameters, strpos, and `LIKE '% word%'` on trigram-indexed columns —
 * exactly "a word starting with word" there, since columns hold folded words each after a space.
 */
class PostgresDialect implements Dialect {
  readonly values: unknown[] = [];

  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  contains(haystack: string, needle: string): string {
    return `(strpos(${haystack}, ${needle}) > 0)::int`;
  }

  textIndex(conditions: TextCondition[]) {
    const exact = conditions.map(
      ({ column, words }) => TRIGRAM_INDEXED.has(column) && words !== undefined && words.length === 1,
    );
    const likes = conditions.flatMap(({ column, words }, i) =>
      exact[i] ? words![0]!.map((word) => `s.${column} LIKE ${this.param(`% ${likeLiteral(word)}%`)}`) : [],
    );
    return likes.length === 0 ? undefined : { sql: likes.join(' AND '), exact };
  }

  /** The dictionary's positions holding each word's start: LIKEs its trigram index answers when large. */
  positions(words: readonly string[]): string {
    const likes = words.map((word) => `d.position LIKE ${this.param(`% ${likeLiteral(word)}%`)}`);
    return `SELECT d.position FROM people_positions d WHERE ${likes.join(' AND ')}`;
  }

  /** OFFSET 0 keeps the subquery whole: ORDER BY id LIMIT n above it cannot become a walk in id order. */
  fence(select: string): string {
    return `${select} OFFSET 0`;
  }

  /**
   * A window of the table's next rows in id order, read by its id index: a subquery with a LIMIT, which
   * the planner cannot merge with the conditions (it would otherwise guess their selectivity, badly).
   */
  inIdOrder(table: string, afterId: string | undefined, window: number): string {
    const after = afterId === undefined ? '' : `WHERE t.id > ${this.param(afterId)}`;
    return `(SELECT t.* FROM ${table} t ${after} ORDER BY t.id LIMIT ${this.param(window)}) s`;
  }
}

/** A row's text is a generated column of the search tables (migration 8). */
const TABLES = { people: searchTables('people', 's.text'), companies: searchTables('companies', 's.text') };

type HitRow = { id: string; body: string; rank: number };

/**
 * Counts, chooses the plan and reads the page (statements on the read pool). A walk whose window held
 * too few matches for a full page (the last page, or matches thinner there than on average) is read
 * again by the filtered plan.
 */
async function run(pool: pg.Pool, prepared: PreparedSearch): Promise<SearchPage> {
  const count = renderCount(new PostgresDialect(), prepared);
  const { rows } = await query<{ n: string; size: string }>(pool, count);
  const n = Number(rows[0]?.n ?? 0);
  const total = totalOf(n);
  const choice = choosePlan(n, Number(rows[0]?.size ?? 0), prepared.query, planHints(prepared));
  if (choice === undefined) return { total, hits: [] };
  let page = await query<HitRow>(pool, renderPage(new PostgresDialect(), prepared, choice));
  if (choice.plan === 'ordered' && page.rows.length < prepared.query.limit) {
    page = await query<HitRow>(
      pool,
      renderPage(new PostgresDialect(), prepared, { plan: 'filtered', window: 0, retry: true }),
    );
  }
  return { total, hits: page.rows.map((row) => ({ id: row.id, body: row.body, rank: Number(row.rank) })) };
}

/** A search's page, or the 503 of one PostgreSQL stopped for its time. */
async function bounded(pool: pg.Pool, prepared: PreparedSearch): Promise<SearchPage> {
  try {
    return await run(pool, prepared);
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) throw tooCostly();
    throw error;
  }
}

/**
 * Searches read a pool of their own (on the replica when DATABASE_READ_URL is set), each statement bounded
 * by SEARCH_TIMEOUT_MS.
 */
export class PostgresSearch implements SearchStore {
  constructor(private readonly pool: pg.Pool) {}

  searchPeople(q: SearchQuery<PeopleFilters>): Promise<SearchPage> {
    return bounded(this.pool, preparePeopleSearch(TABLES.people, q));
  }

  searchCompanies(q: SearchQuery<CompanyFilters>): Promise<SearchPage> {
    return bounded(this.pool, prepareCompanySearch(TABLES.companies, q));
  }
}
