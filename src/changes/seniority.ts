// The seniority order a promotion climbs (contract §8), read from the vocabulary's list of seniorities.
import { SENIORITIES } from '../generate/values.js';

/**
 * Lowest first: Other < Manager < … < Board Member / Company Director. The vocabulary lists seniorities
 * highest first and ends with "No Data Available", which is no rung: a person without data is not ranked.
 */
export const SENIORITY_ORDER: readonly string[] = SENIORITIES.filter(
  (s) => s !== 'No Data Available',
).reverse();

const RANKS = new Map(SENIORITY_ORDER.map((seniority, rank) => [seniority, rank]));

/** A seniority's rung (0 = Other), or undefined for "No Data Available", null or an unknown value. */
export function seniorityRank(seniority: unknown): number | undefined {
  return typeof seniority === 'string' ? RANKS.get(seniority) : undefined;
}

/**
 * True when both seniorities are on the ladder and the new one is higher.
 * @example isPromotion('Manager', 'VP/Director / Head of') // true
 */
export function isPromotion(before: unknown, after: unknown): boolean {
  const from = seniorityRank(before);
  const to = seniorityRank(after);
  return from !== undefined && to !== undefined && to > from;
}
