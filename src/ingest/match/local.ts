// Matches rows against the local store: each row is the lookup a single GET would make with its params.
import { type ItemOutcome, lookupItem } from '../../lookup/item.js';
import type { LookupOperation } from '../../lookup/operations.js';
import { isPromise } from '../../store/maybe-promise.js';
import type { RecordStore } from '../../store/records.js';
import type { Resolver, RowOutcome } from './list.js';

/** Rows per call: on PostgreSQL, a call's lookups are in flight together. */
const CHUNK_ROWS = 1000;

/** The outcome of a malformed row, which is not looked up. */
export const MALFORMED: RowOutcome = { status: 'invalid' };

/** A lookup's outcome as a row's: the record's stored bytes kept as they are, decoded only if written. */
export function rowOutcome(item: ItemOutcome): RowOutcome {
  // A row that matched nothing says so by its status; the others say why they were not matched.
  if (item.status === 'not_found') return { status: item.status };
  if (item.status !== 'matched') return { status: item.status, problem: item.problem.detail };
  const matched: RowOutcome = {
    status: 'matched',
    matchedBy: item.matchedBy,
    id: item.record.id,
    record: { json: item.record.body },
  };
  if (item.likelihood !== undefined) matched.likelihood = item.likelihood;
  return matched;
}

export function localResolver(store: RecordStore, operation: LookupOperation): Resolver {
  return {
    chunkSize: CHUNK_ROWS,
    inFlight: 1,
    resolve(params) {
      const outcomes: RowOutcome[] = new Array(params.length);
      const pending: Promise<void>[] = [];
      params.forEach((given, i) => {
        if (given === undefined) {
          outcomes[i] = MALFORMED;
          return;
        }
        const item = lookupItem(store, operation, given);
        if (!isPromise(item)) outcomes[i] = rowOutcome(item);
        else
          pending.push(
            item.then((settled) => {
              outcomes[i] = rowOutcome(settled);
            }),
          );
      });
      return pending.length > 0 ? Promise.all(pending).then(() => outcomes) : outcomes;
    },
  };
}
