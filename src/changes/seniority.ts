// Whether a title change is a promotion: a move up the vocabulary's seniority order (contract §8).
import { SENIORITY_ORDER } from '../vocabulary/seniorities.js';

const RANKS = new Map<string, number>(SENIORITY_ORDER.map((seniority, rank) => [seniority, rank]));

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
