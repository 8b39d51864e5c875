// The departments of contract §1: their labels in id order.
import { searchWords } from './words.js';

/** Department labels; a label's id is its place in this list, from 1 (the people search takes ids). */
export const DEPARTMENTS = [
  'General Management',
  'Sales',
  'Trades',
  'Operations',
  'Engineering & Technical',
  'Human Resources',
  'Customer Service',
  'Medicine & Healthcare',
  'Research & Analysis',
  'Legal',
  'Marketing',
  'Education & Training',
  'Consulting',
  'Finance',
  'Product',
  'Other',
  'No Data Available',
] as const;
export type Department = (typeof DEPARTMENTS)[number];

const IDS = new Map(DEPARTMENTS.map((label, i) => [searchWords(label), i + 1]));

/** The id of a department label (case, spacing and punctuation ignored), or undefined. */
export const departmentId = (label: string) => IDS.get(searchWords(label));
