// Strict parsing of a lookup's query (contract §3): known names only, each once, non-empty, bounded.
import { ProblemError } from '../errors.js';
import { MAX_TEXT_LENGTH } from '../schemas/text.js';

export const MAX_VALUE_LENGTH = MAX_TEXT_LENGTH;

/**
 * Checks a parsed query against the accepted parameter names and returns the identifiers' [name, value]
 * pairs in the order of `accepted`. `options` names parameters that are accepted but identify nothing
 * (`fields`): left for the caller to read, and not listed as `accepted` in a problem, which names the
 * identifiers (as a bulk item, which has no `fields` of its own, names them).
 * @example parseLookupQuery({ work_email: 'a@b.co' }, PERSON_PARAMS) // [['work_email', 'a@b.co']]
 */
export function parseLookupQuery<P extends string>(
  query: Record<string, unknown>,
  accepted: readonly P[],
  options: readonly string[] = [],
): Array<[P, string]> {
  // A query names one or two parameters of a dozen: its own names are read, not every accepted one's.
  let given: Array<[P, string]> | undefined;
  let valid = true;
  for (const name in query) {
    if (!(accepted as readonly string[]).includes(name)) {
      if (!options.includes(name)) throw unknown(name, accepted);
      continue;
    }
    const value = query[name];
    if (value === undefined) continue;
    if (valueFault(name, value) !== undefined) valid = false;
    else given = appended(given, [name as P, value as string]);
  }
  // A bad value is told as before: the first in `accepted` order, once every name is known to be accepted.
  if (!valid) given = checkedInOrder(query, accepted);
  else if (given !== undefined && given.length > 1)
    given.sort(([a], [b]) => accepted.indexOf(a) - accepted.indexOf(b));
  if (given === undefined || given.length === 0) {
    throw new ProblemError('missing_identifier', `Give at least one identifier: ${accepted.join(', ')}.`, {
      accepted,
    });
  }
  return given;
}

/**
 * `list` with `item` at its end, or a list of `item` alone. A query gives one or two names, and the first
 * push to an empty `[]` reserves room for 17 items, about 150 bytes for the collector to clear each time
 * (BENCHMARKS.md, "Fewer objects for each item of a stream").
 */
export function appended<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

/** What is wrong with a parameter's value, or undefined when it is a usable identifier. */
function valueFault(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${name} is given more than once.`;
  if (value.trim() === '') return `${name} is empty.`;
  if (value.length > MAX_VALUE_LENGTH) return `${name} is longer than ${MAX_VALUE_LENGTH} characters.`;
  return undefined;
}

/** The accepted parameters' values in `accepted` order; throws the 400 of the first bad one. */
function checkedInOrder<P extends string>(
  query: Record<string, unknown>,
  accepted: readonly P[],
): Array<[P, string]> {
  const given: Array<[P, string]> = [];
  for (const name of accepted) {
    const value = query[name];
    if (value === undefined) continue;
    const fault = valueFault(name, value);
    if (fault !== undefined) throw invalid(name, fault);
    given.push([name, value as string]);
  }
  return given;
}

function unknown(name: string, accepted: readonly string[]): ProblemError {
  const hint = /token|key|auth/i.test(name) ? ' Tokens are accepted only in the Authorization header.' : '';
  return new ProblemError(
    'unknown_parameter',
    `Unknown parameter "${name.slice(0, 64)}"; accepted: ${accepted.join(', ')}.${hint}`,
    { parameter: name.slice(0, 64), accepted },
  );
}

const invalid = (parameter: string, detail: string) =>
  new ProblemError('invalid_parameter', detail, { parameter });
