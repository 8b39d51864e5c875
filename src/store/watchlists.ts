// The watchlists role of the store (contract §8): a key's lists of people and companies whose changes it
// follows, each entry the id a lookup resolved, the client's ref, and its kind.
import type { Watched } from '../changes/watch.js';

export type { Watched };

/** What an entry watches: one person, or one company (and everyone joining or leaving it). */
export type WatchKind = 'person' | 'company';

/** A watchlist as stored; `size` is how many entries it holds. Dates are ISO-8601 strings. */
export interface Watchlist {
  id: string;
  key_id: string;
  name: string;
  size: number;
  created_at: string;
}

/** An entry to add: what it watches, and the client's ref for it (null when none was given). */
export interface NewWatchEntry {
  kind: WatchKind;
  record_id: string;
  ref: string | null;
}

/** An entry as listed: `seq` orders a watchlist's entries as they were first added, and names the entry. */
export interface WatchEntry extends NewWatchEntry {
  seq: number;
}

export interface WatchlistStore {
  createWatchlist(watchlist: Omit<Watchlist, 'size'>): Promise<void>;
  /** The key's own watchlist; undefined for another key's, as for none. */
  getWatchlist(keyId: string, id: string): Promise<Watchlist | undefined>;
  /** The key's watchlists, oldest first. */
  listWatchlists(keyId: string): Promise<Watchlist[]>;
  /** Deletes the key's watchlist and its entries; false when it has none of that id. */
  deleteWatchlist(keyId: string, id: string): Promise<boolean>;
  /**
   * Adds entries in one transaction: one already there for the same kind and record keeps its place and
   * takes the new ref. Returns the watchlist's size after.
   */
  addWatchEntries(watchlistId: string, entries: readonly NewWatchEntry[]): Promise<number>;
  /** The watchlist's entries with a seq greater than `after`, in seq order, at most `limit`. */
  listWatchEntries(watchlistId: string, after: number, limit: number): Promise<WatchEntry[]>;
  /** Removes one entry; false when the watchlist has no entry of that seq. */
  deleteWatchEntry(watchlistId: string, seq: number): Promise<boolean>;
  /** Which of these ids the watchlist watches, in one query (for a page of events: src/changes/watch.ts). */
  watchedIn(
    watchlistId: string,
    personIds: readonly string[],
    companyIds: readonly string[],
  ): Promise<Watched>;
}
