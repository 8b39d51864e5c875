// Values of search parameters and filters: each checked, normalised for the search tables, or a 400 naming it.
import { ProblemError } from '../errors.js';
import { MAX_VALUES, MAX_WORDS } from '../schemas/search.js';
import { MAX_TEXT_LENGTH } from '../schemas/text.js';
import { DEPARTMENTS, departmentId } from '../vocabulary/departments.js';
import { isRecordId } from '../vocabulary/record-id.js';
import { SENIORITIES, seniorityId } from '../vocabulary/seniorities.js';
import { wordList } from '../vocabulary/words.js';

// The longest text value a search takes, as for lookups.
export { MAX_TEXT_LENGTH };

export const invalid = (parameter: string, detail: string) =>
  new ProblemError('invalid_parameter', detail, { parameter });

/** A list of values (one value is a list of one): at least one, at most MAX_VALUES. */
export function valuesOf(parameter: string, given: unknown): unknown[] {
  const values = Array.isArray(given) ? given : [given];
  if (values.length === 0) throw invalid(parameter, `${parameter} is an empty list.`);
  if (values.length > MAX_VALUES) {
    throw invalid(parameter, `${parameter} lists more than ${MAX_VALUES} values.`);
  }
  return values;
}

/** A non-empty string of at most MAX_TEXT_LENGTH characters. */
export function text(parameter: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(parameter, `${parameter} must be a string.`);
  if (value.trim() === '') throw invalid(parameter, `${parameter} is empty.`);
  if (value.length > MAX_TEXT_LENGTH) {
    throw invalid(parameter, `${parameter} is longer than ${MAX_TEXT_LENGTH} characters.`);
  }
  return value;
}

/**
 * The distinct words of a text value, at most MAX_WORDS; one with no letter or digit is refused (it would
 * match everything).
 */
export function words(parameter: string, value: unknown): string[] {
  const list = wordList(text(parameter, value));
  if (list.length === 0) throw invalid(parameter, `${parameter} holds no word (no letter or digit).`);
  if (list.length > MAX_WORDS) {
    throw new ProblemError(
      'invalid_parameter',
      `${parameter} holds ${list.length} words; a search value holds at most ${MAX_WORDS}.`,
      { parameter, max_words: MAX_WORDS },
    );
  }
  return list;
}

export function recordId(parameter: string, value: unknown): string {
  const id = text(parameter, value).trim();
  if (!isRecordId(id)) {
    throw invalid(parameter, `${parameter}: not a record id (1 to 64 letters, digits, _ or -).`);
  }
  return id;
}

/** An integer in [min, max], given as a JSON number or (from a query string) as its digits. */
export function integer(parameter: string, value: unknown, min: number, max: number): number {
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw invalid(parameter, `${parameter} must be a whole number from ${min} to ${max}.`);
  }
  return n;
}

/** An enumeration's id: a label (contract §1, case and punctuation ignored) or its number. */
function enumerated(
  parameter: string,
  value: unknown,
  labels: readonly string[],
  idOf: (label: string) => number | undefined,
): number {
  if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) {
    return integer(parameter, value, 1, labels.length);
  }
  const id = idOf(text(parameter, value));
  if (id === undefined) {
    const valid = labels.map((label, i) => `${i + 1} = ${label}`).join('; ');
    throw invalid(parameter, `${parameter}: not one of ${valid}.`);
  }
  return id;
}

export const seniority = (parameter: string, value: unknown) =>
  enumerated(parameter, value, SENIORITIES, seniorityId);

export const department = (parameter: string, value: unknown) =>
  enumerated(parameter, value, DEPARTMENTS, departmentId);
