// The search role on SQLite: the shared SQL (../sql/search.ts), with FTS5 finding words and counting them,
// each search within its budget of work (SEARCH_BUDGET_MS).
import type Database from 'better-sqlite3';
import {
  type CompanyFilters,
  type PeopleFilters,
  SEARCH_BUDGET_MS,
  type SearchHit,
  type SearchPage,
  type SearchQuery,
  type SearchStore,
  TOTAL_CAP,
  totalOf,
} from '../search.js';
import {
  type Dialect,
  type PreparedSearch,
  planHints,
  prepareCompanySearch,
  preparePeopleSearch,
  RANKED,
  type Rendered,
  renderCount,
  renderFoundPage,
  renderMatches,
  renderPage,
  renderSize,
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

/** The SQL function that stops a search's statement once its budget is spent (registered by SqliteSearch). */
const BUDGET_FUNCTION = 'search_within_budget';

/**
 * The clock is read at about one row in this many (those whose rid it divides): a call into JavaScript for
 * every row would cost more than most rows (0.1 µs to 20 µs each), and 256 of them take a few ms at most.
 */
const BUDGET_CHECK_EVERY = 256;

/**
 * The share of the budget the count has in SQL, where it is cheapest: most searches count within it.
 * One that does not is counted again, one match at a time, for the rest (so that it knows those found).
 */
const COUNT_SHARE = 0.2;

/** What the budget function throws: caught by the search, which then answers what it found. */
class BudgetSpent extends Error {
  constructor() {
    super('the search budget is spent');
  }
}

/** SQLite's spelling: named parameters (better-sqlite3 binds them from an object), instr, FTS5. */
class SqliteDialect implements Dialect {
  readonly values: unknown[] = [];
  constructor(
    private readonly fts: readonly FtsTable[],
    private readonly idIndex: string,
    /** Whether its statements check the search's budget as they read rows. */
    private readonly budgeted: boolean,
  ) {}

  budget(rowid: string): string | undefined {
    if (!this.budgeted) return undefined;
    return `((${rowid} & ${BUDGET_CHECK_EVERY - 1}) <> 0 OR ${BUDGET_FUNCTION}())`;
  }

  /** A text index's rows that match `query`, each checked against the budget (FTS5 may yield many). */
  private matching(fts: string, query: string): string {
    const budget = this.budget('rowid');
    return `FROM ${fts} WHERE ${fts} MATCH ${this.param(query)}${budget ? ` AND ${budget}` : ''}`;
  }

  rids(rids: readonly number[]): string {
    return `SELECT value FROM json_each(${this.param(JSON.stringify(rids))})`;
  }

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
      .map(([fts, held]) => `s.rid IN (SELECT rowid ${this.matching(fts, ftsQuery(held))})`)
      .join(' AND ');
    return { sql, exact: conditions.map((condition) => condition.words !== undefined) };
  }

  /** Found in one FTS index alone, when it holds every condition and decides each exactly. */
  textIndexMatches(conditions: TextCondition[], cap: number): string | undefined {
    const groups = this.byIndex(conditions);
    if (groups.length !== 1 || conditions.some((condition) => condition.words === undefined))
      return undefined;
    const [fts] = groups[0]!;
    return `SELECT rowid AS rid ${this.matching(fts, ftsQuery(conditions))} LIMIT ${cap}`;
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

/** What `read` returns, or undefined when the search's budget ran out first. */
function withinBudget<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof BudgetSpent) return undefined;
    throw error;
  }
}

/** What a count statement answers (renderCount). */
interface Counted {
  n: number;
  size: number;
}

/** The matches a search found (the first TOTAL_CAP + 1 at most), and whether its budget ran out first. */
interface Found {
  rids: number[];
  spent: boolean;
}

/**
 * Searches read this turn's snapshot, as lookups do (a server's searches then take no locks of their own);
 * a server's run on a search thread instead (search-thread.ts), whose connection reads what is committed.
 *
 * Each search has `budgetMs` of work (see run). better-sqlite3 offers neither sqlite3_interrupt nor a
 * progress handler, so the statements themselves read the clock: a condition on every row they read calls
 * the budget function at one row in BUDGET_CHECK_EVERY, which throws once the budget is spent and so stops
 * the statement.
 */
export class SqliteSearch implements SearchStore {
  private readonly statements = new Map<string, Database.Statement>();
  private thread: SearchThread | undefined;
  /** When the running search's budget is spent, on performance.now()'s clock. */
  private deadline = Number.POSITIVE_INFINITY;

  constructor(
    private readonly db: Database.Database,
    private readonly snapshot: TurnSnapshot,
    private readonly budgetMs: number = SEARCH_BUDGET_MS,
  ) {
    db.function(BUDGET_FUNCTION, { deterministic: false }, () => {
      if (performance.now() > this.deadline) throw new BudgetSpent();
      return 1;
    });
  }

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      if (this.statements.size >= STATEMENTS_KEPT) this.statements.clear();
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** The matches, read one by one until TOTAL_CAP + 1 or the budget's end. */
  private matches({ text, values }: Rendered): Found {
    const rids: number[] = [];
    const read = withinBudget(() => {
      for (const rid of this.statement(text).pluck().iterate(asNamed(values))) rids.push(rid as number);
      return true;
    });
    return { rids, spent: read === undefined };
  }

  private hits({ text, values }: Rendered): SearchHit[] {
    const rows = this.statement(text).raw().all(asNamed(values)) as Array<[string, string, number]>;
    return rows.map(([id, body, rank]) => ({ id, body, rank }));
  }

  /**
   * Counts, chooses the plan, reads the page: in one read transaction, so total and page agree. The count
   * is made in SQL (cheapest) within COUNT_SHARE of the budget. One cut short is made again from the start
   * by reading the matches one by one for the rest of it: the page is then read from the matches found,
   * and the total is a lower bound when they are not all found. A page whose budget runs out is read from
   * the matches counted too (finding them again costs what the count did).
   */
  private run(entity: 'people' | 'companies', prepared: PreparedSearch): SearchPage {
    const { search } = ENTITY_TABLES[entity];
    const dialect = (budgeted = Number.isFinite(this.budgetMs)) =>
      new SqliteDialect(ftsTables(entity), `${search}_id`, budgeted);
    const fromFound = (rids: number[]) =>
      rids.length === 0 ? [] : this.hits(renderFoundPage(dialect(false), prepared, rids));
    const started = performance.now();
    return this.db.transaction((): SearchPage => {
      this.deadline = started + this.budgetMs * COUNT_SHARE;
      const count = renderCount(dialect(), prepared);
      const counted = withinBudget(() => this.statement(count.text).get(asNamed(count.values)) as Counted);
      this.deadline = started + this.budgetMs;
      const found = counted === undefined ? this.matches(renderMatches(dialect(), prepared)) : undefined;
      // The page is read from the matches found when they are every match, those found before the budget
      // ran out, or (ranked) the first RANKED found, as renderPage ranks the first RANKED it finds by the
      // same conditions. A page in id order of more than TOTAL_CAP matches is read from them all.
      if (found && (found.spent || found.rids.length <= TOTAL_CAP || prepared.query.q?.length)) {
        const n = found.rids.length;
        const total = found.spent
          ? ({ value: Math.min(n, TOTAL_CAP), relation: 'gte' } as const)
          : totalOf(n);
        return { total, hits: fromFound(found.rids.slice(0, RANKED)) };
      }
      const n = counted?.n ?? TOTAL_CAP + 1;
      const total = totalOf(n);
      const choice = choosePlan(n, counted?.size ?? this.size(prepared), prepared.query, planHints(prepared));
      if (choice === undefined) return { total, hits: [] };
      const hits = withinBudget(() => this.hits(renderPage(dialect(), prepared, choice)));
      if (hits !== undefined) return { total, hits };
      // Found again without a budget when the count did not keep them: it found them within its share.
      const again = found ?? this.matches(renderMatches(dialect(false), prepared));
      return { total, hits: fromFound(again.rids.slice(0, RANKED)) };
    })();
  }

  private size({ tables }: PreparedSearch): number {
    return this.statement(renderSize(tables).text).pluck().get() as number;
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
