// What the lookup path asks of accounting: record a keyed lookup, and send its reply once that record is kept.
import type { Operation } from '../store/store.js';

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

/** A reply kept back until its lookup's record is kept. */
export interface HeldReply {
  send(): void;
  /** Sends `503 unavailable` instead: the record could not be kept, so the answer is not disclosed. */
  refuse(): void;
}

export interface Accounting {
  /** Records a keyed lookup, then sends `reply`: at once, or once the record is safe. */
  record(lookup: LookupRecord, reply: HeldReply): void;
  /** Resolves once every lookup recorded so far is in the store (usage reports read it there). */
  foldNow(): Promise<void>;
  /** Writes everything recorded; later lookups are refused. */
  close(): Promise<void>;
}
