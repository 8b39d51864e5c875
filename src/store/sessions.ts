// The sessions role of the store: the console's sign-ins, kept where every server and worker sees them.
import type { MaybePromise } from './maybe-promise.js';

/**
 * A signed-in console: the key it stands for, by the hash of the token it was opened with (so that the
 * token's own state — revoked, expired, rotated out — decides whether the session still works). Only the
 * SHA-256 of the session id is stored; dates are ISO-8601 strings.
 */
export interface ConsoleSession {
  key_id: string;
  key_hash: string;
  created_at: string;
  /** The last request it made (updated at most once a minute): the idle expiry counts from here. */
  last_seen_at: string;
}

export interface SessionStore {
  createSession(hash: string, session: ConsoleSession): Promise<void>;
  /** The session whose id hashes to `hash`; at once, without a promise, on SQLite. */
  findSession(hash: string): MaybePromise<ConsoleSession | undefined>;
  /** Records a request of the session at `at`. */
  touchSession(hash: string, at: Date): Promise<void>;
  /** Ends a session; false when there was none. */
  deleteSession(hash: string): Promise<boolean>;
  /** Ends every session idle since before `before`; returns how many. */
  pruneSessions(before: Date): Promise<number>;
}
