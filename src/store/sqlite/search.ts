// The search role on SQLite: the shared SQL (../sql/search.ts), with FTS5 finding words and counting them.
import type Database from 'better-sqlite3';
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
import { TEXT_FIELDS } from '../sql/search-columns.js';
import { choosePlan } from '../sql/search-plan.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import { type FtsTable, ftsTables, POSITIONS } from './search-schema.js';
import type { SearchThread } from './search-thread.js';
import type { TurnSnapshot } from './snapshot.js';

const quoted = (word: string) => `"${word}"`;
const starts = (words: readonly string[]) => words.map((word) => `${quoted(word)}*`).join(' AND ');

/**
 * An FTS5 query for the conditions. The ascii tokenizer makes each stored word one token, so a prefix
 * query `"eng"*` on a column is exactly "a word of it starts with eng"; phrases only narrow.
 */
export function ftsQuery(conditions: readonly TextCondition[]): string {
  return conditions
    .map(({ column, words, phrases }) => {
      const inner = words
        ? words.map((list) => `(${starts(list)})`).join(' OR ')
        : (phrases ?? []).map(quoted).join(' OR ');
      return `${column} : (${inner})`;
    })
    .join(' AND ');
}

/** SQLite's spelling: named parameters (better-sqlite3 binds them from an object), instr, FTS5. */
class SqliteDialect implements Dialect {
  readonly values: unknown[] = [];
  constructor(
    private readonly fts: readonly FtsTable[],
    private readonly idIndex: string,
  ) {}

  /** The conditions grouped by the FTS index that holds their column. */
  private byIndex(conditions: TextCondition[]): Array<[string, TextCondition[]]> {
    return this.fts
      .map(({ name, columns }): [string, TextCondition[]] => [
        name,
        conditions.filter((c) => columns.some(([column]) => column === c.column)),
      ])
      .filter(([, held]) => held.length > 0);
  }

  param(value: unknown): string {
    this.values.push(value);
    return `@p${this.values.length}`;
  }

  contains(haystack: string, needle: string): string {
    return `(instr(${haystack}, ${needle}) > 0)`;
  }

  textIndex(conditions: TextCondition[]) {
    const sql = this.byIndex(conditions)
      .map(
        ([fts, held]) =>
          `s.rid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${this.param(ftsQuery(held))})`,
      )
      .join(' AND ');
    return { sql, exact: conditions.map((condition) => condition.words !== undefined) };
  }

  /** Counted from one FTS index alone, when it holds every condition and decides each exactly. */
  textIndexCount(conditions: TextCondition[], cap: number): string | undefined {
    const groups = this.byIndex(conditions);
    if (groups.length !== 1 || conditions.some((condition) => condition.words === undefined))
      return undefined;
    const [fts] = groups[0]!;
    return `SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ${this.param(ftsQuery(conditions))} LIMIT ${cap})`;
  }

  /** The dictionary's positions whose FTS5 words hold each word's start (a prefix query: exact). */
  positions(words: readonly string[]): string {
    const { table, fts } = POSITIONS;
    return `SELECT d.position FROM ${table} d
      WHERE d.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${this.param(`position : (${starts(words)})`)})`;
  }

  /** SQLite walks the id index when told to, and stops as soon as the page is full: no window. */
  inIdOrder(table: string): string {
    return `${table} s INDEXED BY ${this.idIndex}`;
  }
}

/** A row's text is its text fields' words one after another (the tables keep no column of it). */
const tablesOf = (entity: 'people' | 'companies') =>
  searchTables(entity, `(${TEXT_FIELDS[entity].map((field) => `s.${field}`).join(' || ')})`);
const TABLES = { people: tablesOf('people'), companies: tablesOf('companies') };

/** Statements kept per SQL text: a search's shape repeats, its values change. */
const STATEMENTS_KEPT = 500;

const asNamed = (values: unknown[]) => Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

/**
 * Searches read this turn's snapshot, as lookups do (a server's searches then take no locks of their own);
 * a server's run on a search thread instead (search-thread.ts), whose connection reads what is committed.
 */
export class SqliteSearch implements SearchStore {
  private readonly statements = new Map<string, Database.Statement>();
  private thread: SearchThread | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {}

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      if (this.statements.size >= STATEMENTS_KEPT) this.statements.clear();
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** Counts, chooses the plan, reads the page: in one read transaction, so total and page agree. */
  private run(entity: 'people' | 'companies', prepared: PreparedSearch): SearchPage {
    const { search } = ENTITY_TABLES[entity];
    const dialect = () => new SqliteDialect(ftsTables(entity), `${search}_id`);
    return this.db.transaction(() => {
      const count = renderCount(dialect(), prepared);
      const { n, size } = this.statement(count.text).get(asNamed(count.values)) as {
        n: number;
        size: number;
      };
      const choice = choosePlan(n, size, prepared.query, planHints(prepared));
      if (choice === undefined) return { total: totalOf(n), hits: [] };
      const page = renderPage(dialect(), prepared, choice);
      const hits = this.statement(page.text).raw().all(asNamed(page.values)) as Array<
        [string, string, number]
      >;
      return { total: totalOf(n), hits: hits.map(([id, body, rank]) => ({ id, body, rank })) };
    })();
  }

  /** From now on, searches run on `thread` (a server's), off this connection and its event loop. */
  offload(thread: SearchThread): void {
    this.thread = thread;
  }

  /** A search on this connection, at once: what the search thread runs. */
  searchNow(entity: 'people' | 'companies', query: SearchQuery<unknown>): SearchPage {
    this.snapshot.enter();
    return entity === 'people'
      ? this.run('people', preparePeopleSearch(TABLES.people, query as SearchQuery<PeopleFilters>))
      : this.run('companies', prepareCompanySearch(TABLES.companies, query as SearchQuery<CompanyFilters>));
  }

  async searchPeople(query: SearchQuery<PeopleFilters>): Promise<SearchPage> {
    if (this.thread?.running) return this.thread.search('people', query);
    return this.searchNow('people', query);
  }

  async searchCompanies(query: SearchQuery<CompanyFilters>): Promise<SearchPage> {
    if (this.thread?.running) return this.thread.search('companies', query);
    return this.searchNow('companies', query);
  }
}
