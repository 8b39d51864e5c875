// Resolution of identifiers to one record (contract §3): every given identifier is resolved; one distinct record wins.
import { ProblemError } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { RecordStore, ServedRecord } from '../store/records.js';
import type { Entity } from '../vocabulary/entities.js';
import { matchByName, type NameMatch, type NameMatched } from './name-match.js';

/** How many ids one identifier may list in a 409 before the list is cut. */
export const MAX_IDS_PER_IDENTIFIER = 10;

export interface Resolved {
  record: ServedRecord;
  /** The parameters that matched the record, in the order given. */
  matchedBy: string[];
  /** How likely (1–10) the record is the one asked for, when it was matched by name and company. */
  likelihood?: number;
}

const LIMIT = MAX_IDS_PER_IDENTIFIER + 1;

/** The records one key names: one read, or two when a normalised value falls back to another form. */
function recordsFor(store: RecordStore, entity: Entity, key: LookupKey): MaybePromise<ServedRecord[]> {
  const found = store.findRecords(entity, key.kind, key.value, LIMIT);
  if (!('fallback' in key) || key.fallback === undefined) return found;
  const fallback = key.fallback;
  const orFallback = (records: ServedRecord[]) =>
    records.length > 0 ? records : store.findRecords(entity, key.kind, fallback, LIMIT);
  return isPromise(found) ? found.then(orFallback) : orFallback(found);
}

const notFound = (entity: Entity) =>
  new ProblemError(
    'not_found',
    `No ${entity === 'people' ? 'person' : 'company'} matches the given identifiers.`,
  );

function ambiguous(keys: Array<[string, LookupKey]>, matches: ServedRecord[][], distinct: number) {
  const byParameter: Record<string, string[]> = {};
  keys.forEach(([name], i) => {
    const records = matches[i]!;
    if (records.length > 0) byParameter[name] = records.slice(0, MAX_IDS_PER_IDENTIFIER).map((r) => r.id);
  });
  return new ProblemError(
    'ambiguous_match',
    `The identifiers match ${distinct > MAX_IDS_PER_IDENTIFIER ? 'more than 10' : distinct} different records; give one that identifies a single record.`,
    { matches: byParameter },
  );
}

/** The one record every key's matches agree on, or the problem of none or several. */
function decide(entity: Entity, keys: Array<[string, LookupKey]>, matches: ServedRecord[][]): Resolved {
  if (keys.length === 1) {
    const found = matches[0]!;
    if (found.length === 0) throw notFound(entity);
    if (found.length > 1) throw ambiguous(keys, matches, found.length);
    return { record: found[0]!, matchedBy: [keys[0]![0]] };
  }
  const distinct = new Map<string, ServedRecord>();
  for (const records of matches) for (const record of records) distinct.set(record.id, record);
  if (distinct.size === 0) throw notFound(entity);
  if (distinct.size > 1) throw ambiguous(keys, matches, distinct.size);
  const [record] = distinct.values();
  return { record: record!, matchedBy: keys.filter((_, i) => matches[i]!.length > 0).map(([name]) => name) };
}

/**
 * Resolves [parameter, key] pairs to exactly one record, or throws `not_found` (nothing matched) or
 * `ambiguous_match` (two or more distinct records, listing which parameter matched which ids). Each key
 * costs one read of the store, which returns the matching records' bytes with their ids. Answers at
 * once, without a promise, when the store does (SQLite); a promise otherwise (its rejection the problem).
 */
export function resolve(
  store: RecordStore,
  entity: Entity,
  keys: Array<[string, LookupKey]>,
  name?: NameMatch,
): MaybePromise<Resolved> {
  if (name !== undefined) return resolveWithName(store, entity, keys, name);
  if (keys.length === 1) {
    // The common case: one identifier, one read, no bookkeeping.
    const found = recordsFor(store, entity, keys[0]![1]);
    return isPromise(found) ? found.then((f) => decide(entity, keys, [f])) : decide(entity, keys, [found]);
  }
  const matches = keys.map(([, key]) => recordsFor(store, entity, key));
  if (!matches.some(isPromise)) return decide(entity, keys, matches as ServedRecord[][]);
  return Promise.all(matches).then((settled) => decide(entity, keys, settled));
}

const byName =
  (name: NameMatch) =>
  ({ record, likelihood }: NameMatched): Resolved => ({
    record,
    matchedBy: name.params,
    likelihood,
  });

function matchName(store: RecordStore, name: NameMatch): MaybePromise<Resolved> {
  const matched = matchByName(store, name);
  return isPromise(matched) ? matched.then(byName(name)) : byName(name)(matched);
}

const isNotFound = (error: unknown) => error instanceof ProblemError && error.code === 'not_found';

/**
 * The identifiers decide when any of them matches (one record, or a 409 of theirs); the name and company
 * are consulted only when none does, or none is given.
 */
function resolveWithName(
  store: RecordStore,
  entity: Entity,
  keys: Array<[string, LookupKey]>,
  name: NameMatch,
): MaybePromise<Resolved> {
  if (keys.length === 0) return matchName(store, name);
  let strong: MaybePromise<Resolved>;
  try {
    strong = resolve(store, entity, keys);
  } catch (error) {
    if (isNotFound(error)) return matchName(store, name);
    throw error;
  }
  if (!isPromise(strong)) return strong;
  return strong.catch((error: unknown) =>
    isNotFound(error) ? matchName(store, name) : Promise.reject(error),
  );
}
