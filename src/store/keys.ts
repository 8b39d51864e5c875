// The keys role of the store: API keys, by hash for every request, and their settings for the admin.
import type { Scope } from '../vocabulary/operations.js';
import type { MaybePromise } from './maybe-promise.js';

/** An API key as stored: never the token, only its SHA-256 hash. Dates are ISO-8601 strings. */
export interface ApiKey {
  id: string;
  name: string;
  hash: string;
  scopes: Scope[];
  /** Requests per second; the bucket holds one second's worth. */
  rate: number;
  /** Matched lookups per calendar month (UTC), or null for none. */
  quota: number | null;
  /**
   * Search results (previews) per calendar month (UTC), or null (or absent, a key made before it) for
   * none: the search allowance, counted apart from `quota`.
   */
  search_quota?: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * A key as read back from the store: its settings and, after a rotation, the hash of the token it
 * replaced, accepted until `previous_expires_at` (both null when the key was never rotated).
 */
export interface StoredKey extends ApiKey {
  previous_hash: string | null;
  previous_expires_at: string | null;
}

/** The settings `updateKey` changes, each only when given; a key's id and token are never changed so. */
export type KeyChanges = Partial<
  Pick<ApiKey, 'name' | 'scopes' | 'rate' | 'quota' | 'search_quota' | 'expires_at'>
>;

export interface KeyStore {
  createKey(key: ApiKey): Promise<void>;
  /**
   * The key whose current token hash, or any it had before a rotation, is `hash`. Which one matched is
   * told by comparing `key.hash` and `key.previous_hash` with `hash` (neither: a token rotated out by an
   * earlier rotation); the caller checks the previous token's grace period. Hashes other than the
   * current one are looked up only when it does not match.
   * Answered at once by a backend that holds its keys in memory (SQLite), so a lookup authenticates
   * without a promise; a commit elsewhere (a revocation) is seen by the next request all the same.
   */
  findKeyByHash(hash: string): MaybePromise<StoredKey | undefined>;
  getKey(id: string): Promise<StoredKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /**
   * Changes an unrevoked key's settings in place: the fields given, and only those (a null quota or
   * expiry removes it). Its id, token and usage stay. Seen by a running server's next request, as a
   * revocation is. False when no such key or revoked.
   */
  updateKey(id: string, changes: KeyChanges): Promise<boolean>;
  /** Marks a key revoked; false when no such key or already revoked. */
  revokeKey(id: string, at: Date): Promise<boolean>;
  /**
   * Gives an unrevoked key a new token hash; the current hash becomes the previous one, accepted
   * until `previousExpiresAt` (a previous one from an earlier rotation is then accepted no longer),
   * and is kept for good so that findKeyByHash still names the key. False when no such key or revoked.
   */
  rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean>;
}
