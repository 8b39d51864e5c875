// The SQL of a search, written once for both stores: their dialects differ only in the text index each
// consults first (SQLite FTS5, PostgreSQL pg_trgm) and in spelling; the predicates that decide a match
// and the rank are the same expressions over the same folded columns, so both answer alike.
import type { CompanyFilters, PageStart, PeopleFilters, SearchQuery } from '../search/query.js';
import { TOTAL_CAP } from '../search/query.js';

/** A word condition a text index can narrow: every word within a column, or any of several phrases. */
export type TextCondition =
  | { column: string; all: string[] }
  | { column: string; anyPhrase: string[] }
  | { column: string; anyOf: string[][] };

export interface Dialect {
  /** The placeholder of a new parameter holding `value`. */
  param(value: unknown): string;
  /** 1 when `needle` (a placeholder) occurs in `haystack`, else 0, as an integer. */
  contains(haystack: string, needle: string): string;
  /**
   * A condition narrowing rows of search table `s` by its text index (true of every row the exact
   * predicates accept), or undefined when the dialect has none for these conditions.
   */
  textIndex(conditions: TextCondition[]): string | undefined;
  /** Every parameter, in placeholder order. */
  readonly values: unknown[];
}

export interface SearchTables {
  records: string;
  search: string;
  /** The columns `q` looks in and ranks by, in order. */
  textFields: readonly string[];
  /** A column (or expression over `s`) holding every text field's words one after another. */
  allText: string;
}

export interface RenderedSearch {
  count: { text: string; values: unknown[] };
  page: { text: string; values: unknown[] };
}

/** Words within a column: `' ' + word` occurs for each (columns hold `storedWords`). */
function allWords(d: Dialect, column: string, words: readonly string[]): string[] {
  return words.map((word) => `${d.contains(column, d.param(` ${word}`))} = 1`);
}

const anyOf = (parts: string[]) => (parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`);

function inList(d: Dialect, column: string, values: readonly unknown[] | undefined): string[] {
  if (values === undefined || values.length === 0) return [];
  if (values.length === 1) return [`${column} = ${d.param(values[0])}`];
  return [`${column} IN (${values.map((v) => d.param(v)).join(', ')})`];
}

/** Any of the keys in a `|a|b|` key list column. */
function inKeyList(d: Dialect, column: string, keys: readonly string[] | undefined): string[] {
  if (keys === undefined || keys.length === 0) return [];
  return [anyOf(keys.map((key) => `${d.contains(column, d.param(`|${key}|`))} = 1`))];
}

/** The predicates of a people search; `text` collects what a text index may narrow first. */
function peoplePredicates(d: Dialect, t: SearchTables, f: PeopleFilters, q: string[] | undefined) {
  const text: TextCondition[] = [];
  if (f.position?.length) text.push({ column: 'position', all: f.position });
  if (q?.length) text.push({ column: 'text', all: q });
  if (f.skills?.length) text.push({ column: 'skills', anyPhrase: f.skills });
  if (f.locations?.length) text.push({ column: 'location', anyOf: f.locations });
  const index = text.length > 0 ? d.textIndex(text) : undefined;
  const where = [
    ...(index ? [index] : []),
    ...inList(d, 's.company_id', f.companyIds),
    ...inList(d, 's.seniority', f.seniorities),
    ...inList(d, 's.department', f.departments),
    ...inList(d, 's.country', f.countries),
    ...inList(d, 's.state', f.states),
    ...allWords(d, 's.position', f.position ?? []),
    ...allWords(d, t.allText, q ?? []),
    ...inKeyList(d, 's.skill_keys', f.skills),
  ];
  if (f.locations?.length) {
    where.push(anyOf(f.locations.map((words) => `(${allWords(d, 's.location', words).join(' AND ')})`)));
  }
  return where;
}

function companyPredicates(d: Dialect, t: SearchTables, f: CompanyFilters, q: string[] | undefined) {
  const index = q?.length ? d.textIndex([{ column: 'text', all: q }]) : undefined;
  const where = [
    ...(index ? [index] : []),
    ...inKeyList(d, 's.industries', f.industries),
    ...inList(d, 's.size', f.sizes),
    ...inKeyList(d, 's.states', f.states),
    ...inList(d, 's.country', f.countries),
    ...inKeyList(d, 's.technologies', f.technologies),
    ...inList(d, 's.revenue', f.revenues),
    ...allWords(d, t.allText, q ?? []),
  ];
  const years = f.yearFounded;
  if (years?.gte !== undefined) where.push(`s.year_founded >= ${d.param(years.gte)}`);
  if (years?.lte !== undefined) where.push(`s.year_founded <= ${d.param(years.lte)}`);
  return where;
}

/** Σ over q's words and the text fields: 1 for a word's start in a field, 1 more for the whole word. */
function rankOf(d: Dialect, t: SearchTables, q: readonly string[]): string {
  const terms = t.textFields.flatMap((field) =>
    q.flatMap((word) => [
      d.contains(`s.${field}`, d.param(` ${word}`)),
      d.contains(`s.${field} || ' '`, d.param(` ${word} `)),
    ]),
  );
  return `(${terms.join(' + ')})`;
}

const conjunction = (where: string[]) => (where.length === 0 ? 'TRUE' : where.join(' AND '));

/** ORDER BY, keyset start and LIMIT/OFFSET of a page; ranked (`m`) or by id (`s`). */
function paging(d: Dialect, ranked: boolean, start: PageStart | undefined, limit: number) {
  const alias = ranked ? 'm' : 's';
  let after = '';
  if (start && 'after' in start) {
    const { rank, id } = start.after;
    after = ranked
      ? `(m.rank < ${d.param(rank)} OR (m.rank = ${d.param(rank)} AND m.id > ${d.param(id)}))`
      : `s.id > ${d.param(id)}`;
  }
  const order = ranked ? 'ORDER BY m.rank DESC, m.id' : `ORDER BY ${alias}.id`;
  const offset = start && 'offset' in start && start.offset > 0 ? ` OFFSET ${d.param(start.offset)}` : '';
  return { after, tail: `${order} LIMIT ${d.param(limit)}${offset}` };
}

/**
 * The count (capped at TOTAL_CAP + 1 rows) and the page of a search. Each query is rendered on its own
 * dialect instance (`dialect()`), so each has its own parameters.
 */
function render(
  dialect: () => Dialect,
  t: SearchTables,
  query: SearchQuery<unknown>,
  predicates: (d: Dialect) => string[],
): RenderedSearch {
  const c = dialect();
  const count = `SELECT count(*) AS n FROM (SELECT 1 FROM ${t.search} s WHERE ${conjunction(predicates(c))} LIMIT ${TOTAL_CAP + 1}) c`;
  const p = dialect();
  const where = predicates(p);
  const q = query.q ?? [];
  let page: string;
  if (q.length === 0) {
    const { after, tail } = paging(p, false, query.start, query.limit);
    if (after) where.push(after);
    page = `SELECT s.id, r.body, 0 AS rank FROM ${t.search} s JOIN ${t.records} r ON r.rid = s.rid
            WHERE ${conjunction(where)} ${tail}`;
  } else {
    const inner = `SELECT s.rid, s.id, ${rankOf(p, t, q)} AS rank FROM ${t.search} s WHERE ${conjunction(where)}`;
    const { after, tail } = paging(p, true, query.start, query.limit);
    page = `SELECT m.id, r.body, m.rank FROM (${inner}) m JOIN ${t.records} r ON r.rid = m.rid
            ${after ? `WHERE ${after}` : ''} ${tail}`;
  }
  return { count: { text: count, values: c.values }, page: { text: page, values: p.values } };
}

export function renderPeopleSearch(
  dialect: () => Dialect,
  t: SearchTables,
  query: SearchQuery<PeopleFilters>,
): RenderedSearch {
  return render(dialect, t, query, (d) => peoplePredicates(d, t, query.filters, query.q));
}

export function renderCompanySearch(
  dialect: () => Dialect,
  t: SearchTables,
  query: SearchQuery<CompanyFilters>,
): RenderedSearch {
  return render(dialect, t, query, (d) => companyPredicates(d, t, query.filters, query.q));
}
