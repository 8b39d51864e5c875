// Searches on SQLite: the shared SQL (../search-sql.ts) with FTS5 narrowing word conditions first.
import type Database from 'better-sqlite3';
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
import { SEARCH_TABLES } from './search-schema.js';

const quoted = (word: string) => `"${word}"`;

/** An FTS5 query narrowing rows to those every condition may hold for (words as starts, skills whole). */
export function ftsQuery(conditions: readonly TextCondition[]): string {
  return conditions
    .map((condition) => {
      const inner =
        'all' in condition
          ? condition.all.map((word) => `${quoted(word)}*`).join(' AND ')
          : 'anyPhrase' in condition
            ? condition.anyPhrase.map(quoted).join(' OR ')
            : condition.anyOf
                .map((words) => `(${words.map((word) => `${quoted(word)}*`).join(' AND ')})`)
                .join(' OR ');
      return `${condition.column} : (${inner})`;
    })
    .join(' AND ');
}

/** SQLite's spelling: named parameters (better-sqlite3 binds them from an object), instr, FTS5. */
class SqliteDialect implements Dialect {
  readonly values: unknown[] = [];
  constructor(private readonly fts: string) {}

  param(value: unknown): string {
    this.values.push(value);
    return `@p${this.values.length}`;
  }

  contains(haystack: string, needle: string): string {
    return `(instr(${haystack}, ${needle}) > 0)`;
  }

  textIndex(conditions: TextCondition[]): string {
    return `s.rid IN (SELECT rowid FROM ${this.fts} WHERE ${this.fts} MATCH ${this.param(ftsQuery(conditions))})`;
  }
}

const TABLES: Record<'people' | 'companies', SearchTables> = {
  people: {
    records: 'people',
    search: SEARCH_TABLES.people.search,
    textFields: ['name', 'position', 'headline', 'skills'],
    allText: '(s.name || s.position || s.headline || s.skills)',
  },
  companies: {
    records: 'companies',
    search: SEARCH_TABLES.companies.search,
    textFields: ['name', 'description', 'keywords'],
    allText: '(s.name || s.description || s.keywords)',
  },
};

/** Statements kept per SQL text: a search's shape repeats, its values change. */
const STATEMENTS_KEPT = 500;

const asNamed = (values: unknown[]) => Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

export class SqliteSearch {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      if (this.statements.size >= STATEMENTS_KEPT) this.statements.clear();
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** Runs a rendered search: the capped count and the page, in one read transaction. */
  private run(rendered: RenderedSearch): SearchPage {
    return this.db.transaction(() => {
      const counted = this.statement(rendered.count.text).pluck().get(asNamed(rendered.count.values));
      const hits = this.statement(rendered.page.text).raw().all(asNamed(rendered.page.values)) as Array<
        [string, string, number]
      >;
      return {
        total: totalOf(Number(counted)),
        hits: hits.map(([id, body, rank]) => ({ id, body, rank })),
      };
    })();
  }

  people(query: SearchQuery<PeopleFilters>): SearchPage {
    const dialect = () => new SqliteDialect(SEARCH_TABLES.people.fts);
    return this.run(renderPeopleSearch(dialect, TABLES.people, query));
  }

  companies(query: SearchQuery<CompanyFilters>): SearchPage {
    const dialect = () => new SqliteDialect(SEARCH_TABLES.companies.fts);
    return this.run(renderCompanySearch(dialect, TABLES.companies, query));
  }
}
