// One lookup by its query parameters, answered as `GET /people` and `GET /company` answer it once the key is
// admitted: parse (400) → select fields (400) → resolve (404, 409) → the record's bytes, or its fields. No HTTP,
// no key, no accounting: `enrich lookup` on the local store uses it as it is.
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { Store } from '../store/store.js';
import { projectRecord } from './fields.js';
import type { LookupOperation } from './operations.js';
import { parseLookupQuery } from './query.js';
import { type Resolved, resolve } from './resolve.js';
import { FIELDS_PARAM, parseSelection, type Selection, selectionEtag } from './selection.js';

/** A lookup's `200`: the body as served, and what its headers say. */
export interface LookupFound {
  id: string;
  /** The record's stored bytes, or with `fields` its projection. */
  body: Buffer | string;
  etag: string;
  /** `Enrich-Matched-By`: the parameters that matched, in the order given. */
  matchedBy: string[];
  /** `Enrich-Match-Likelihood`, for a match by name and company. */
  likelihood?: number;
}

function found({ record, matchedBy, likelihood }: Resolved, selection: Selection | undefined): LookupFound {
  const answer: LookupFound = {
    id: record.id,
    body: selection === undefined ? record.body : projectRecord(record.body, selection.tree),
    etag: selection === undefined ? record.etag : selectionEtag(record.etag, selection),
    matchedBy,
  };
  if (likelihood !== undefined) answer.likelihood = likelihood;
  return answer;
}

/**
 * Answers a lookup's parameters (a query string's, parsed: a repeated parameter is an array) with the GET's
 * rules and in its order; throws the GET's ProblemError (400 `missing_identifier`, `unknown_parameter`,
 * `invalid_parameter`; 404 `not_found`; 409 `ambiguous_match`). At once when the store answers at once.
 * @example await answerLookup(store, PEOPLE_LOOKUP, { work_email: 'jane@acme.com.au', fields: 'name' })
 * // { id: 'fp…', body: '{"id":"fp…","name":"Jane Citizen"}', matchedBy: ['work_email'], … }
 */
export function answerLookup(
  store: Store,
  operation: LookupOperation,
  query: Record<string, unknown>,
): MaybePromise<LookupFound> {
  const { keys, name } = operation.toKeys(parseLookupQuery(query, operation.params, [FIELDS_PARAM]));
  const fields = query[FIELDS_PARAM];
  const selection = fields === undefined ? undefined : parseSelection(operation.entity, fields);
  const resolved = resolve(store, operation.entity, keys, name);
  return isPromise(resolved) ? resolved.then((r) => found(r, selection)) : found(resolved, selection);
}
