// The change log a store keeps, for the feed and `enrich changes` to read.
import type { ChangeStore } from '../store/changes.js';

/** A log that stays empty: what a backend without a change log of its own answers. */
const EMPTY_LOG: ChangeStore = {
  readChanges: async () => [],
  changeBounds: async () => ({ first: 0, last: 0 }),
  watchChanges: () => () => {},
  pruneChanges: async () => 0,
  changesAppended: () => new Map(),
};

/** The store's change log; an empty one while its backend keeps none (the change log's branch adds it). */
export function changeLogOf(store: object): ChangeStore {
  return 'readChanges' in store ? (store as ChangeStore) : EMPTY_LOG;
}
