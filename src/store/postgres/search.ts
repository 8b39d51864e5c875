// Searches on PostgreSQL: the shared SQL (../search-sql.ts), with pg_trgm indexes finding words.
import type pg from 'pg';
import {
  type CompanyFilters,
  type PeopleFilters,
  type SearchPage,
  type SearchQuery,
  totalOf,
} from '../../search/query.js';
import {
  choosePlan,
  type Dialect,
  type PreparedSearch,
  prepareCompanySearch,
  preparePeopleSearch,
  renderCount,
  renderPage,
  type SearchTables,
  type TextCondition,
} from '../search-sql.js';
import { query } from './pool.js';

/** Columns with a trigram index: a word condition on them can be a LIKE the index answers. */
const TRIGRAM_INDEXED = new Set(['position', 'text']);

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

  inIdOrder(table: string): string {
    return `${table} s`;
  }

  /** An expression of the column, which none of its indexes serves. */
  unindexed(column: string, type: 'text' | 'integer'): string {
    return type === 'text' ? `(${column} || '')` : `(${column} + 0)`;
  }
}

const TABLES: Record<'people' | 'companies', SearchTables> = {
  people: {
    records: 'people',
    search: 'people_search',
    textFields: ['name', 'position', 'headline', 'skills'],
    allText: 's.text',
  },
  companies: {
    records: 'companies',
    search: 'companies_search',
    textFields: ['name', 'description', 'keywords'],
    allText: 's.text',
  },
};

/** Counts, chooses the plan and reads the page (two statements, on the read pool). */
async function run(pool: pg.Pool, prepared: PreparedSearch): Promise<SearchPage> {
  const count = renderCount(new PostgresDialect(), prepared);
  const { rows } = await query<{ n: string; size: string }>(pool, count);
  const n = Number(rows[0]?.n ?? 0);
  const plan = choosePlan(n, Number(rows[0]?.size ?? 0), prepared.query);
  if (plan === undefined) return { total: totalOf(n), hits: [] };
  const page = await query<{ id: string; body: string; rank: number }>(
    pool,
    renderPage(new PostgresDialect(), prepared, plan),
  );
  return {
    total: totalOf(n),
    hits: page.rows.map((row) => ({ id: row.id, body: row.body, rank: Number(row.rank) })),
  };
}

export function searchPeople(pool: pg.Pool, q: SearchQuery<PeopleFilters>): Promise<SearchPage> {
  return run(pool, preparePeopleSearch(TABLES.people, q));
}

export function searchCompanies(pool: pg.Pool, q: SearchQuery<CompanyFilters>): Promise<SearchPage> {
  return run(pool, prepareCompanySearch(TABLES.companies, q));
}
