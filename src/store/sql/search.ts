// The SQL of a search, written once for both stores: their dialects differ only in the text index each
// consults (SQLite FTS5, PostgreSQL pg_trgm) and in spelling; the predicates that decide a match and the
// rank are the same expressions over the same folded columns, so both answer alike.
import type { Entity } from '../../vocabulary/entities.js';
import type { CompanyFilters, PageStart, PeopleFilters, SearchQuery } from '../search.js';
import { TOTAL_CAP } from '../search.js';
import { TEXT_FIELDS } from './search-columns.js';
import { offsetOf, type Plan, type PlanChoice, type PlanHints } from './search-plan.js';
import { ENTITY_TABLES } from './tables.js';

/** A word condition: its exact predicate, and what a text index may make of it. */
export interface TextCondition {
  column: string;
  /** Every word within the column (as a word or its start); or any of several such lists. */
  words?: string[][];
  /** Any of these phrases within the column (a text index narrows; `exact` decides). */
  phrases?: string[];
  exact: (d: Dialect) => string;
}

export interface Dialect {
  /** The placeholder of a new parameter holding `value`. */
  param(value: unknown): string;
  /** 1 when `needle` (a placeholder) occurs in `haystack`, else 0, as an integer. */
  contains(haystack: string, needle: string): string;
  /**
   * A condition on search table `s` from the text index, true of every row the conditions accept, and
   * which of them it decides exactly; undefined when the index serves none of them.
   */
  textIndex(conditions: TextCondition[]): { sql: string; exact: boolean[] } | undefined;
  /**
   * The first `cap` rows the text index alone accepts, as a subquery of their rids (column `rid`), when it
   * decides every condition.
   */
  textIndexMatches?(conditions: TextCondition[], cap: number): string | undefined;
  /**
   * A condition true of every row of `rowid` read, which stops the statement once the search's time is
   * spent (SQLite's search budget); it is put first, so that rows are checked before they are read.
   */
  budget?(rowid: string): string | undefined;
  /** The given rids as a subquery of one column, for a page read from the matches already found. */
  rids?(rids: readonly number[]): string;
  /**
   * The distinct positions on file (a superset: none is ever missing) holding every one of `words` as a
   * word or the start of one, as a subquery of one column: a person matches a position search when their
   * position is among them. Positions repeat (thousands hold "Sales Manager"), so the words are matched
   * against a few hundred or thousand texts, and the people are then found by the position index, counted
   * without reading their rows.
   */
  positions(words: readonly string[]): string;
  /**
   * The search table, aliased `s`, walked in id order (the `ordered` plan) from after `afterId`; a
   * dialect whose planner cannot be told so may read a window of `window` rows.
   */
  inIdOrder(table: string, afterId: string | undefined, window: number): string;
  /**
   * A subquery the planner must run as written (all its rows), for a dialect whose planner would walk the
   * id index to find a few matches rather than find them all through their own indexes and sort them:
   * PostgreSQL's, whose estimate of a match's rarity through a subquery cannot see the words.
   */
  fence?(select: string): string;
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

/** An entity's tables as a search reads them; `allText` as the backend holds a row's text (TEXT_FIELDS). */
export const searchTables = (entity: Entity, allText: string): SearchTables => ({
  records: ENTITY_TABLES[entity].records,
  search: ENTITY_TABLES[entity].search,
  textFields: TEXT_FIELDS[entity],
  allText,
});

export interface Rendered {
  text: string;
  values: unknown[];
}

/** Words within a column: `' ' + word` occurs for each (columns hold `storedWords`). */
function allWords(d: Dialect, column: string, words: readonly string[]): string {
  return words.map((word) => `${d.contains(column, d.param(` ${word}`))} = 1`).join(' AND ');
}

const anyOf = (parts: string[]) => (parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`);

/** Any of the keys in a `|a|b|` key list column. */
const inKeyList = (d: Dialect, column: string, keys: readonly string[]) =>
  anyOf(keys.map((key) => `${d.contains(column, d.param(`|${key}|`))} = 1`));

/** Comparisons of plain columns with values, each to hold: [column, type, values or range]. */
type Comparison =
  | [column: string, type: 'text' | 'integer', values: readonly unknown[] | undefined]
  | [column: string, type: 'integer', range: { gte?: number; lte?: number } | undefined];

/** A search's conditions: on words (a text index may serve them) and on other columns. */
interface Conditions {
  text: TextCondition[];
  comparisons: Comparison[];
  keyLists: Array<[column: string, keys: readonly string[] | undefined]>;
  /** Exact conditions of their own (the position's words, through the dictionary of positions). */
  others: Array<(d: Dialect) => string>;
  /**
   * True when an index holds the matches in id order (its columns are exactly the filters, each one
   * value): the filtered plan then reads only the page's rows, never more than a walk would.
   */
  indexOrdered: boolean;
}

/** The people search indexes whose entries follow their columns with the id (search-schema, migrations). */
const PEOPLE_ID_ORDERED: readonly (readonly string[])[] = [
  ['s.company_id'],
  ['s.seniority', 's.department', 's.country'],
  ['s.country'],
  ['s.state'],
];

/** Whether the comparisons given are one value each on exactly the columns of one of `indexes`. */
function servedInIdOrder(comparisons: Comparison[], indexes: readonly (readonly string[])[]): boolean {
  const given = comparisons.filter(([, , v]) => v !== undefined);
  if (!given.every(([, , v]) => Array.isArray(v) && v.length === 1)) return false;
  const columns = given.map(([c]) => c).sort();
  return indexes.some((index) => [...index].sort().join() === columns.join());
}

function peopleConditions(t: SearchTables, f: PeopleFilters, q: string[] | undefined): Conditions {
  const text: TextCondition[] = [];
  const others: Conditions['others'] = [];
  const position = f.position;
  if (position?.length) others.push((d) => `s.position IN (${d.positions(position)})`);
  if (q?.length) text.push({ column: 'text', words: [q], exact: (d) => allWords(d, t.allText, q) });
  const skills = f.skills;
  if (skills?.length) {
    text.push({ column: 'skills', phrases: skills, exact: (d) => inKeyList(d, 's.skill_keys', skills) });
  }
  const locations = f.locations;
  if (locations?.length) {
    text.push({
      column: 'location',
      words: locations,
      exact: (d) => anyOf(locations.map((words) => `(${allWords(d, 's.location', words)})`)),
    });
  }
  const comparisons: Comparison[] = [
    ['s.company_id', 'text', f.companyIds],
    ['s.seniority', 'integer', f.seniorities],
    ['s.department', 'integer', f.departments],
    ['s.country', 'text', f.countries],
    ['s.state', 'text', f.states],
  ];
  const indexOrdered =
    text.length === 0 && others.length === 0 && servedInIdOrder(comparisons, PEOPLE_ID_ORDERED);
  return { text, comparisons, keyLists: [], others, indexOrdered };
}

function companyConditions(t: SearchTables, f: CompanyFilters, q: string[] | undefined): Conditions {
  const text: TextCondition[] = q?.length
    ? [{ column: 'text', words: [q], exact: (d) => allWords(d, t.allText, q) }]
    : [];
  return {
    text,
    comparisons: [
      ['s.size', 'text', f.sizes],
      ['s.country', 'text', f.countries],
      ['s.revenue', 'text', f.revenues],
      ['s.year_founded', 'integer', f.yearFounded],
    ],
    keyLists: [
      ['s.industries', f.industries],
      ['s.states', f.states],
      ['s.technologies', f.technologies],
    ],
    others: [],
    indexOrdered: false,
  };
}

function comparison(d: Dialect, [c, , given]: Comparison): string[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) {
    const range = given as { gte?: number; lte?: number };
    return [
      ...(range.gte === undefined ? [] : [`${c} >= ${d.param(range.gte)}`]),
      ...(range.lte === undefined ? [] : [`${c} <= ${d.param(range.lte)}`]),
    ];
  }
  if (given.length === 0) return [];
  if (given.length === 1) return [`${c} = ${d.param(given[0])}`];
  return [`${c} IN (${given.map((v) => d.param(v)).join(', ')})`];
}

/** The WHERE conjuncts of a search under a plan: the text index narrows only a `filtered` one. */
function predicates(d: Dialect, plan: Plan, c: Conditions): string[] {
  const budget = d.budget?.('s.rid');
  const where: string[] = budget ? [budget] : [];
  const index = plan === 'filtered' && c.text.length > 0 ? d.textIndex(c.text) : undefined;
  if (index) where.push(index.sql);
  c.text.forEach((condition, i) => {
    if (!index?.exact[i]) where.push(condition.exact(d));
  });
  for (const compared of c.comparisons) where.push(...comparison(d, compared));
  for (const [column, keys] of c.keyLists) if (keys?.length) where.push(inKeyList(d, column, keys));
  for (const other of c.others) where.push(other(d));
  return where;
}

/** Matches ranked at most: as many as a total counts exactly. */
export const RANKED = TOTAL_CAP;

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

const conjunction = (where: string[]) => (where.length === 0 ? '1 = 1' : where.join(' AND '));

/** A search, ready to render: its conditions and query. */
export interface PreparedSearch {
  tables: SearchTables;
  conditions: Conditions;
  query: SearchQuery<unknown>;
}

export const preparePeopleSearch = (t: SearchTables, query: SearchQuery<PeopleFilters>): PreparedSearch => ({
  tables: t,
  conditions: peopleConditions(t, query.filters, query.q),
  query,
});

export const prepareCompanySearch = (
  t: SearchTables,
  query: SearchQuery<CompanyFilters>,
): PreparedSearch => ({
  tables: t,
  conditions: companyConditions(t, query.filters, query.q),
  query,
});

/** The first TOTAL_CAP + 1 matches found by the filtered plan, each as `column` (`1`, or its rid). */
function matches(d: Dialect, { tables: t, conditions: c }: PreparedSearch, column: '1' | 's.rid'): string {
  const onlyText =
    c.comparisons.every(([, , v]) => v === undefined) &&
    c.keyLists.every(([, k]) => !k?.length) &&
    c.others.length === 0;
  const fromIndex = onlyText && c.text.length > 0 ? d.textIndexMatches?.(c.text, TOTAL_CAP + 1) : undefined;
  return (
    fromIndex ??
    `SELECT ${column} FROM ${t.search} s WHERE ${conjunction(predicates(d, 'filtered', c))} LIMIT ${TOTAL_CAP + 1}`
  );
}

/** The size of the search table as its largest rid: an estimate the plan is chosen by. */
const sizeOf = (t: SearchTables) => `SELECT coalesce(max(rid), 0) FROM ${t.search}`;

/** The count of matches, capped at TOTAL_CAP + 1 (`n`), and the size of the search table (`size`). */
export function renderCount(d: Dialect, prepared: PreparedSearch): Rendered {
  return {
    text: `SELECT (SELECT count(*) FROM (${matches(d, prepared, '1')}) c) AS n, (${sizeOf(prepared.tables)}) AS size`,
    values: d.values,
  };
}

/**
 * The rids of the first TOTAL_CAP + 1 matches, for a store that counts them as it reads them (SQLite, which
 * can then stop counting when its budget is spent and still knows the matches found so far).
 */
export function renderMatches(d: Dialect, prepared: PreparedSearch): Rendered {
  return { text: matches(d, prepared, 's.rid'), values: d.values };
}

/** The size of the search table as `size` (see renderCount). */
export const renderSize = (t: SearchTables): Rendered => ({
  text: `SELECT (${sizeOf(t)}) AS size`,
  values: [],
});

/** Where a keyset page starts, in the order of the plan. */
function after(d: Dialect, ranked: boolean, start: PageStart | undefined): string | undefined {
  if (!start || !('after' in start)) return undefined;
  const { rank, id } = start.after;
  return ranked
    ? `(m.rank < ${d.param(rank)} OR (m.rank = ${d.param(rank)} AND m.id > ${d.param(id)}))`
    : `s.id > ${d.param(id)}`;
}

/** The page's LIMIT and OFFSET. */
function pageLimit(d: Dialect, query: SearchQuery<unknown>): string {
  const offset = offsetOf(query.start);
  return `LIMIT ${d.param(query.limit)}${offset > 0 ? ` OFFSET ${d.param(offset)}` : ''}`;
}

/** The page's matches (`inner`: rid, id, rank) joined with their records' stored bodies, in `order`. */
const withBodies = (t: SearchTables, inner: string, order: string) =>
  `SELECT m.id, r.body, m.rank FROM (${inner}) m JOIN ${t.records} r ON r.rid = m.rid ORDER BY ${order}`;

/**
 * A page of results: id, stored body and rank, in rank (with `q`) then id order. The page is cut from
 * the search table before the records' bodies are joined, so only the page's bodies are read.
 */
export function renderPage(d: Dialect, prepared: PreparedSearch, choice: PlanChoice): Rendered {
  const { tables: t, conditions: c, query } = prepared;
  const where = predicates(d, choice.plan, c);
  const q = query.q ?? [];
  const afterId = query.start && 'after' in query.start && q.length === 0 ? query.start.after.id : undefined;
  const from = choice.plan === 'ordered' ? d.inIdOrder(t.search, afterId, choice.window) : `${t.search} s`;
  if (q.length === 0) {
    const limit = pageLimit(d, query);
    const start = after(d, false, query.start);
    if (start) where.push(start);
    const matching = `FROM ${from} WHERE ${conjunction(where)}`;
    // Matches to find, then sort: where the planner would rather walk the id index, it is told not to.
    const fence = choice.plan === 'filtered' && !choice.retry && !c.indexOrdered ? d.fence : undefined;
    const inner = fence
      ? `SELECT f.rid, f.id, 0 AS rank FROM (${fence(`SELECT s.rid, s.id ${matching}`)}) f ORDER BY f.id ${limit}`
      : `SELECT s.rid, s.id, 0 AS rank ${matching} ORDER BY s.id ${limit}`;
    return { text: withBodies(t, inner, 'm.id'), values: d.values };
  }
  // At most RANKED matches are ranked (the first the plan finds, the same for every page): a `q` matching
  // much of a large store costs no more than one matching 10,000, and the total says `gte` then.
  const ranked = `SELECT s.rid, s.id, ${rankOf(d, t, q)} AS rank FROM ${from} WHERE ${conjunction(where)}
                  LIMIT ${RANKED}`;
  return inRankOrder(d, prepared, ranked);
}

/** The page of `ranked` (rid, id and rank of matches), in rank then id order, with their stored bodies. */
function inRankOrder(d: Dialect, { tables: t, query }: PreparedSearch, ranked: string): Rendered {
  const limit = pageLimit(d, query);
  const start = after(d, true, query.start);
  const inner = `SELECT k.rid, k.id, k.rank FROM (${ranked}) k ${start ? `WHERE ${start.replaceAll('m.', 'k.')}` : ''}
                 ORDER BY k.rank DESC, k.id ${limit}`;
  return { text: withBodies(t, inner, 'm.rank DESC, m.id'), values: d.values };
}

/**
 * A page of results read from matches already found (`rids`: every match, when they were counted exactly),
 * in renderPage's order: rank (0 without `q`) descending, then id. What a search whose budget ran out answers.
 */
export function renderFoundPage(d: Dialect, prepared: PreparedSearch, rids: readonly number[]): Rendered {
  if (!d.rids) throw new Error('this dialect reads no page from found matches');
  const { tables: t, query } = prepared;
  const rank = query.q?.length ? rankOf(d, t, query.q) : '0';
  const found = `SELECT s.rid, s.id, ${rank} AS rank FROM ${t.search} s WHERE s.rid IN (${d.rids(rids)})`;
  return inRankOrder(d, prepared, found);
}

/** The hints of a prepared search. */
export const planHints = ({ conditions: c }: PreparedSearch): PlanHints => ({
  indexOrdered: c.indexOrdered,
  textIndexed: c.text.length > 0 || c.keyLists.some(([, keys]) => keys?.length),
});
