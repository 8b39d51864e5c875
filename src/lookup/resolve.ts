// Resolution of identifiers to one record (contract §3): every given identifier is resolved; one distinct record wins.
import { ProblemError } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import type { Entity, Store, StoredRecord } from '../store/store.js';

/** How many ids one identifier may list in a 409 before the list is cut. */
export const MAX_IDS_PER_IDENTIFIER = 10;

export interface Resolved {
  record: StoredRecord;
  /** The parameters that matched the record, in the order given. */
  matchedBy: string[];
}

/** Records read while resolving an `id`, so that the id lookup reads its record once. */
type Seen = Map<string, StoredRecord>;

async function idsFor(store: Store, entity: Entity, key: LookupKey, seen: Seen): Promise<string[]> {
  if (key.kind === 'id') {
    const record = await store.getRecord(entity, key.value);
    if (!record) return [];
    seen.set(record.id, record);
    return [record.id];
  }
  const limit = MAX_IDS_PER_IDENTIFIER + 1;
  const ids = await store.findIds(entity, key.kind, key.value, limit);
  if (ids.length > 0 || !('fallback' in key) || key.fallback === undefined) return ids;
  return store.findIds(entity, key.kind, key.fallback, limit);
}

/**
 * Resolves [parameter, key] pairs to exactly one record, or throws `not_found` (nothing matched) or
 * `ambiguous_match` (two or more distinct records, listing which parameter matched which ids).
 */
export async function resolve(
  store: Store,
  entity: Entity,
  keys: Array<[string, LookupKey]>,
): Promise<Resolved> {
  // The common case, one identifier, costs one index read and one record read.
  const seen: Seen = new Map();
  const matches = await Promise.all(keys.map(([, key]) => idsFor(store, entity, key, seen)));
  const distinct = new Set<string>();
  for (const ids of matches) for (const id of ids) distinct.add(id);
  if (distinct.size === 0) {
    throw new ProblemError(
      'not_found',
      `No ${entity === 'people' ? 'person' : 'company'} matches the given identifiers.`,
    );
  }
  if (distinct.size > 1) {
    const byParameter: Record<string, string[]> = {};
    keys.forEach(([name], i) => {
      const ids = matches[i]!;
      if (ids.length > 0) byParameter[name] = ids.slice(0, MAX_IDS_PER_IDENTIFIER);
    });
    throw new ProblemError(
      'ambiguous_match',
      `The identifiers match ${distinct.size > MAX_IDS_PER_IDENTIFIER ? 'more than 10' : distinct.size} different records; give one that identifies a single record.`,
      { matches: byParameter },
    );
  }
  const [id] = distinct;
  const record = seen.get(id!) ?? (await store.getRecord(entity, id!));
  if (!record) throw new ProblemError('not_found', 'The matching record was removed during the lookup.');
  return { record, matchedBy: keys.filter((_, i) => matches[i]!.length > 0).map(([name]) => name) };
}
