// Strict parsing of a lookup's query (contract §3): known names only, each once, non-empty, bounded.
import { ProblemError } from '../errors.js';

export const MAX_VALUE_LENGTH = 2048;

/**
 * Checks a parsed query against the accepted parameter names and returns [name, value] pairs in
 * the order of `accepted`.
 * @example parseLookupQuery({ work_email: 'a@b.co' }, PERSON_PARAMS) // [['work_email', 'a@b.co']]
 */
export function parseLookupQuery<P extends string>(
  query: Record<string, unknown>,
  accepted: readonly P[],
): Array<[P, string]> {
  for (const name in query) {
    if (!(accepted as readonly string[]).includes(name)) {
      const hint = /token|key|auth/i.test(name)
        ? ' Tokens are accepted only in the Authorization header.'
        : '';
      throw new ProblemError(
        'unknown_parameter',
        `Unknown parameter "${name.slice(0, 64)}"; accepted: ${accepted.join(', ')}.${hint}`,
        { parameter: name.slice(0, 64), accepted },
      );
    }
  }
  const given: Array<[P, string]> = [];
  for (const name of accepted) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalid(name, `${name} is given more than once.`);
    if (value.trim() === '') throw invalid(name, `${name} is empty.`);
    if (value.length > MAX_VALUE_LENGTH)
      throw invalid(name, `${name} is longer than ${MAX_VALUE_LENGTH} characters.`);
    given.push([name, value]);
  }
  if (given.length === 0) {
    throw new ProblemError('missing_identifier', `Give at least one identifier: ${accepted.join(', ')}.`, {
      accepted,
    });
  }
  return given;
}

const invalid = (parameter: string, detail: string) =>
  new ProblemError('invalid_parameter', detail, { parameter });
