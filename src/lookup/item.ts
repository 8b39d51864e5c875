// One lookup given as a JSON object of parameters (a bulk item, a POST body, a row of a list): parsed with the
// GET's rules, resolved, and classified, carrying the very problem a single GET would answer. No HTTP, no
// accounting: the callers meter and audit.
import { ProblemError } from '../errors.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { RecordStore, ServedRecord } from '../store/records.js';
import type { LookupKeys, LookupOperation } from './operations.js';
import { appended, parseLookupQuery } from './query.js';
import { type Resolved, resolve } from './resolve.js';

/** How one item ended: as `enrich match` and the bulk summary count it. */
export type ItemStatus = 'matched' | 'not_found' | 'ambiguous' | 'invalid';

export type ItemOutcome =
  | { status: 'matched'; matchedBy: string[]; record: ServedRecord; likelihood?: number }
  | { status: Exclude<ItemStatus, 'matched'>; problem: ProblemError };

/**
 * The keys of an item's params, validated as a GET's query is (names, repeats, empties, lengths,
 * normalisation, a name match's rules); throws the GET's problem. Values must be strings, as in a query string.
 * @example itemKeys(PEOPLE_LOOKUP, { work_email: 'Jane@Acme.com.au' }) // { keys: [['work_email', {kind: 'work_email', …}]] }
 */
export function itemKeys(operation: LookupOperation, params: unknown): LookupKeys {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new ProblemError('invalid_parameter', 'params must be an object of parameter names and values.', {
      parameter: 'params',
    });
  }
  for (const name in params) {
    const value = (params as Record<string, unknown>)[name];
    if (typeof value !== 'string' && operation.params.includes(name)) {
      throw new ProblemError('invalid_parameter', `${name} must be a string.`, { parameter: name });
    }
  }
  return operation.toKeys(parseLookupQuery(params as Record<string, unknown>, operation.params));
}

/** The names of the parameters an item gave, in the operation's order (audited, never their values). */
export function givenParams(operation: LookupOperation, params: unknown): string[] {
  if (params === null || typeof params !== 'object') return [];
  // The item's own names are read (one or two), not every accepted one's.
  let given: string[] | undefined;
  for (const name in params) {
    if ((params as Record<string, unknown>)[name] !== undefined && operation.params.includes(name))
      given = appended(given, name);
  }
  if (given === undefined) return [];
  if (given.length > 1) given.sort((a, b) => operation.params.indexOf(a) - operation.params.indexOf(b));
  return given;
}

/** The ids a 409 listed, each once: what an ambiguous lookup disclosed. */
export function idsListed(problem: ProblemError): string[] {
  const matches = problem.extensions.matches as Record<string, string[]> | undefined;
  return matches ? [...new Set(Object.values(matches).flat())] : [];
}

/** The item status of a problem a lookup answered; a failure of the service itself is not an item's. */
export function itemStatus(problem: ProblemError): Exclude<ItemStatus, 'matched'> {
  if (problem.code === 'not_found') return 'not_found';
  if (problem.code === 'ambiguous_match') return 'ambiguous';
  return 'invalid';
}

function outcomeOfError(error: unknown): ItemOutcome {
  if (error instanceof ProblemError && error.status < 500)
    return { status: itemStatus(error), problem: error };
  throw error;
}

const matched = ({ record, matchedBy, likelihood }: Resolved): ItemOutcome =>
  likelihood === undefined
    ? { status: 'matched', matchedBy, record }
    : { status: 'matched', matchedBy, record, likelihood };

/**
 * Looks one item up: its record, or the problem the GET would answer (400, 404, 409). A failure of the
 * store (503) throws, as it fails the whole request. Answers at once when the store does (SQLite).
 */
export function lookupItem(
  store: RecordStore,
  operation: LookupOperation,
  params: unknown,
): MaybePromise<ItemOutcome> {
  let resolved: MaybePromise<Resolved>;
  try {
    const { keys, name } = itemKeys(operation, params);
    resolved = resolve(store, operation.entity, keys, name);
  } catch (error) {
    return outcomeOfError(error);
  }
  return isPromise(resolved) ? resolved.then(matched, outcomeOfError) : matched(resolved);
}
