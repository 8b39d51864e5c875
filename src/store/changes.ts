// The change-log role of the store (contract §8): every write to the store of record appends, in its own
// transaction, the events it caused, numbered in commit order; readers page through them by that number.
import type { ChangeEventType, LoggedEvent } from '../changes/events.js';

export type { LoggedEvent };

/** The part of the log still kept: the oldest and newest sequence numbers (both 0 when it is empty). */
export interface ChangeBounds {
  first: number;
  last: number;
}

export interface ChangeStore {
  /**
   * Events after `after` (exclusive) in commit order, at most `limit`, only of `types` when given. Never
   * returns an event whose transaction a later-numbered event's commit could still precede.
   */
  readChanges(after: number, limit: number, types?: readonly ChangeEventType[]): Promise<LoggedEvent[]>;
  changeBounds(): Promise<ChangeBounds>;
  /**
   * Calls `listener` soon after events are committed, by this process or (PostgreSQL: LISTEN/NOTIFY)
   * any other; returns what stops it. A wake-up, not a promise of new events: readers re-read.
   */
  watchChanges(listener: () => void): () => void;
  /** Removes events committed before `before`; says how many. Never blocks writes for long. */
  pruneChanges(before: Date): Promise<number>;
  /** The events this process appended since it opened the store, by type (enrich_change_events_total). */
  changesAppended(): ReadonlyMap<ChangeEventType, number>;
}

/** Counts of events appended by this process, by type. */
export class AppendedEvents {
  readonly counts = new Map<ChangeEventType, number>();

  add(type: ChangeEventType, n: number): void {
    if (n > 0) this.counts.set(type, (this.counts.get(type) ?? 0) + n);
  }
}
