// What the lookup path asks of accounting: record a keyed lookup, and send its reply once that record is kept.
import type { Operation } from '../vocabulary/operations.js';
import type { JournalHealth } from './journal-health.js';

/** One keyed lookup as audited and metered: parameter names (never values), record ids disclosed, status. */
export interface LookupRecord {
  /** When it was answered, ms since the epoch. */
  at: number;
  keyId: string;
  operation: Operation;
  params: string[];
  /** The record id on a 200/304, the ids a 409 listed, none otherwise. */
  matched: string[];
  status: number;
}

/**
 * The lookup path appends a record per keyed lookup, and commits the records of an event-loop turn before
 * it sends that turn's replies: every reply a client receives is on record, even if the process is killed
 * the next instant.
 */
export interface Accounting {
  /** Buffers a keyed lookup's record. */
  append(lookup: LookupRecord): void;
  /** Writes what is buffered; throws when it could not be written (the replies must then not go out). */
  commit(): void;
  /** Whether the journal can be written now; a failure is logged by it, once. */
  readonly health?: JournalHealth | undefined;
  /** Seconds the oldest lookup not yet in the store may have waited: since the last complete fold began. */
  foldLagSeconds?(): number;
  /** Resolves once every lookup committed so far is in the store (usage reports read it there). */
  foldNow(): Promise<void>;
  /**
   * Commits what is buffered and folds what it can; later appends are ignored. Resolves with how many
   * lookups that last fold put in the store.
   */
  close(): Promise<number>;
}
