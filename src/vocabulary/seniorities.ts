// The seniorities of contract §1: their labels in id order, and the order of rank a promotion climbs.
import { searchWords } from './words.js';

/** Seniority labels; a label's id is its place in this list, from 1 (the people search takes ids). */
export const SENIORITIES = [
  'Board Member / Company Director',
  'Owner / Founder',
  'C-Suite / Partner',
  'VP/Director / Head of',
  'Manager',
  'Other',
  'No Data Available',
] as const;
export type Seniority = (typeof SENIORITIES)[number];

/**
 * Seniorities from the lowest rank to the highest (contract §8: a title change is a promotion when it
 * moves up this order). `No Data Available` has no rank.
 */
export const SENIORITY_ORDER: readonly Seniority[] = [
  'Other',
  'Manager',
  'VP/Director / Head of',
  'C-Suite / Partner',
  'Owner / Founder',
  'Board Member / Company Director',
];

const IDS = new Map(SENIORITIES.map((label, i) => [searchWords(label), i + 1]));

/** The id of a seniority label (case, spacing and punctuation ignored), or undefined. */
export const seniorityId = (label: string) => IDS.get(searchWords(label));
