// Searches on PostgreSQL: the shared SQL (../search-sql.ts), with pg_trgm indexes narrowing words first.
import type pg from 'pg';
import {
  type CompanyFilters,
  type PeopleFilters,
  type SearchPage,
  type SearchQuery,
  totalOf,
} from '../../search/query.js';
import {
  type Dialect,
  type RenderedSearch,
  renderCompanySearch,
  renderPeopleSearch,
  type SearchTables,
  type TextCondition,
} from '../search-sql.js';
import { query } from './pool.js';

/** Columns with a trigram index: a word condition on them can be a LIKE the index answers. */
const TRIGRAM_INDEXED = new Set(['position', 'text']);

/** Words hold letters and digits only, but LIKE's own characters are escaped all the same. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** PostgreSQL's spelling: numbered parameters, strpos, and LIKE '% word%' for trigram-indexed columns. */
class PostgresDialect implements Dialect {
  readonly values: unknown[] = [];

  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  contains(haystack: string, needle: string): string {
    return `(strpos(${haystack}, ${needle}) > 0)::int`;
  }

  textIndex(conditions: TextCondition[]): string | undefined {
    const likes = conditions.flatMap((condition) =>
      'all' in condition && TRIGRAM_INDEXED.has(condition.column)
        ? condition.all.map((word) => `s.${condition.column} LIKE ${this.param(`% ${likeLiteral(word)}%`)}`)
        : [],
    );
    return likes.length === 0 ? undefined : likes.join(' AND ');
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

const dialect = () => new PostgresDialect();

/** Runs a rendered search: the capped count and the page in one statement, so one snapshot. */
async function run(pool: pg.Pool, rendered: RenderedSearch): Promise<SearchPage> {
  const { rows } = await query<{ n: string | null; id: string | null; body: string | null; rank: number }>(
    pool,
    {
      text: `SELECT c.n, p.id, p.body, p.rank FROM (${rendered.count.text}) c
             LEFT JOIN LATERAL (${shifted(rendered)}) p ON TRUE ORDER BY p.rank DESC, p.id`,
      values: [...rendered.count.values, ...rendered.page.values],
    },
  );
  const total = totalOf(Number(rows[0]?.n ?? 0));
  const hits = rows
    .filter((row) => row.id !== null)
    .map((row) => ({ id: row.id!, body: row.body!, rank: Number(row.rank) }));
  return { total, hits };
}

/** The page query with its parameters renumbered to follow the count's. */
function shifted(rendered: RenderedSearch): string {
  const offset = rendered.count.values.length;
  return rendered.page.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

export function searchPeople(pool: pg.Pool, q: SearchQuery<PeopleFilters>): Promise<SearchPage> {
  return run(pool, renderPeopleSearch(dialect, TABLES.people, q));
}

export function searchCompanies(pool: pg.Pool, q: SearchQuery<CompanyFilters>): Promise<SearchPage> {
  return run(pool, renderCompanySearch(dialect, TABLES.companies, q));
}
