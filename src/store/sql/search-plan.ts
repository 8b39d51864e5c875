// Which way a search's page is read, chosen from its count and the table's size: the same choice on both stores.
import type { PageStart, SearchQuery } from '../search.js';
import { TOTAL_CAP } from '../search.js';

/**
 * How a page is read. `filtered`: the matches are found by the indexes their filters name, then
 * sorted. `ordered`: the search table is walked in id order and each row checked, stopping when the page is
 * full — far cheaper when matches are many (a common word, seniority alone), and no index serves both.
 */
export type Plan = 'filtered' | 'ordered';

/** How many results a page skips, when it starts at an offset. */
export const offsetOf = (start: PageStart | undefined) => (start && 'offset' in start ? start.offset : 0);

/** A plan, and for `ordered` how many rows a walk is expected to need (twice the estimate, and more). */
export interface PlanChoice {
  plan: Plan;
  window: number;
  /**
   * A `filtered` read after a walk's window fell short: matches thin among the first ids, however many
   * they are, so the dialect's planner chooses how to find them (it is not told to sort them all).
   */
  retry?: boolean;
}

/**
 * How many rows a walk in id order may read for each match it saves fetching: a walk reads the search
 * table in order (0.1–0.4 µs a row on SQLite, 0.6 µs on PostgreSQL), the filtered plan fetches each match
 * at random and sorts (2–20 µs a match through FTS5); measured on a million people. Matches found by
 * B-tree indexes alone (filters, positions) are read from entries holding their ids, at the cost of a
 * walked row or less: one.
 */
const WALK_COST_RATIO = { text: 8, indexed: 1 } as const;

/** What a search's conditions let the filtered plan read (see Conditions). */
export interface PlanHints {
  /** An index holds the matches in id order. */
  indexOrdered: boolean;
  /** Matches are found through a text index (FTS5, trigrams), not B-trees alone. */
  textIndexed: boolean;
}

/**
 * The cheaper plan for a page, from the capped count and the table's size: walking in id order reads
 * about (rows wanted) × size ÷ matches rows; finding and sorting the matches reads every match (at least
 * the count), unless an index holds them in id order (`hints.indexOrdered`: then it reads the page
 * alone). Ranked pages need every match's rank: always `filtered`. Undefined: no page to read.
 */
export function choosePlan(
  counted: number,
  size: number,
  query: SearchQuery<unknown>,
  hints: PlanHints = { indexOrdered: false, textIndexed: true },
): PlanChoice | undefined {
  const offset = offsetOf(query.start);
  if (counted === 0 || (counted <= TOTAL_CAP && offset >= counted)) return undefined;
  if (hints.indexOrdered) return { plan: 'filtered', window: 0 };
  const walked = ((offset + query.limit) * size) / counted;
  const ratio = WALK_COST_RATIO[hints.textIndexed ? 'text' : 'indexed'];
  if (query.q?.length || walked > ratio * counted) return { plan: 'filtered', window: 0 };
  return { plan: 'ordered', window: Math.ceil(2 * walked) + 1000 };
}
