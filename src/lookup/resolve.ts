// Resolution of identifiers to one record (contract §3): every given identifier is resolved; one distinct record wins.
import { ProblemError } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import type { Entity, ServedRecord, Store } from '../store/store.js';

/** How many ids one identifier may list in a 409 before the list is cut. */
export const MAX_IDS_PER_IDENTIFIER = 10;

export interface Resolved {
  record: ServedRecord;
  /** The parameters that matched the record, in the order given. */
  matchedBy: string[];
}

const LIMIT = MAX_IDS_PER_IDENTIFIER + 1;

/** The records one key names: one read, or two when a normalised value falls back to another form. */
async function recordsFor(store: Store, entity: Entity, key: LookupKey): Promise<ServedRecord[]> {
  const found = await store.findRecords(entity, key.kind, key.value, LIMIT);
  if (found.length > 0 || !('fallback' in key) || key.fallback === undefined) return found;
  return store.findRecords(entity, key.kind, key.fallback, LIMIT);
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

/**
 * Resolves [parameter, key] pairs to exactly one record, or throws `not_found` (nothing matched) or
 * `ambiguous_match` (two or more distinct records, listing which parameter matched which ids).
 * Each key costs one read of the store, which returns the matching records' bytes with their ids.
 */
export async function resolve(
  store: Store,
  entity: Entity,
  keys: Array<[string, LookupKey]>,
): Promise<Resolved> {
  if (keys.length === 1) {
    // The common case: one identifier, one read, no bookkeeping.
    const [name, key] = keys[0]!;
    const found = await recordsFor(store, entity, key);
    if (found.length === 0) throw notFound(entity);
    if (found.length > 1) throw ambiguous(keys, [found], found.length);
    return { record: found[0]!, matchedBy: [name] };
  }
  const matches = await Promise.all(keys.map(([, key]) => recordsFor(store, entity, key)));
  const distinct = new Map<string, ServedRecord>();
  for (const records of matches) for (const record of records) distinct.set(record.id, record);
  if (distinct.size === 0) throw notFound(entity);
  if (distinct.size > 1) throw ambiguous(keys, matches, distinct.size);
  const [record] = distinct.values();
  return { record: record!, matchedBy: keys.filter((_, i) => matches[i]!.length > 0).map(([name]) => name) };
}
