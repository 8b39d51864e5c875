// Bearer authentication (contract §4): header → well-formed token → key by hash → live key → scope.
import { ProblemError } from '../errors.js';
import type { ApiKey, KeyStore, StoredKey } from '../store/keys.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { Scope } from '../vocabulary/operations.js';
import { hashToken, isWellFormedToken } from './tokens.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="enrich"' };
const INVALID_TOKEN = { 'www-authenticate': 'Bearer realm="enrich", error="invalid_token"' };

const unauthorized = (detail: string, headers = INVALID_TOKEN) =>
  new ProblemError('unauthorized', detail, {}, headers);

/** How many token hashes (and vouched-for tokens) are remembered before each memo starts over. */
const HASHES_HELD = 10_000;
/** Hashes of tokens seen lately: a hash is a pure function of its token, so the memo is never stale. */
const hashes = new Map<string, string>();
/**
 * Tokens that named a live key when first hashed here. An address over its limit of requests without a
 * valid token may still use them (limits/unauthenticated.ts): an attacker's guesses never get in.
 */
const vouched = new Set<string>();

/**
 * The key a token named, and which of its tokens it was: the current one, the one the last rotation
 * replaced (accepted during its grace period), or one an earlier rotation replaced (never accepted).
 */
export interface KeyMatch {
  key: StoredKey;
  token: 'current' | 'previous' | 'retired';
}

/** Which of its token hashes `hash` is of the key found by it, or a 401 when none was. */
export function matchOf(key: StoredKey | undefined, hash: string): KeyMatch {
  if (!key) throw unauthorized('The bearer token is not recognised.');
  const token = key.hash === hash ? 'current' : key.previous_hash === hash ? 'previous' : 'retired';
  return { key, token };
}

/** The token of an Authorization header, or a 401 saying why there is none. */
function bearerToken(header: string | undefined): string {
  if (header === undefined || header === '') {
    throw unauthorized('An Authorization: Bearer <token> header is required.', CHALLENGE);
  }
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') {
    throw unauthorized('The Authorization header must be of the form "Bearer <token>".');
  }
  return header.slice(space + 1).trim();
}

/** Where a token's key is found: all authentication asks of the store. */
export type KeyFinder = Pick<KeyStore, 'findKeyByHash'>;

/**
 * The key a request's Authorization header names, live or not, or a 401 (thrown, or the promise's
 * rejection). Never reads the store for a malformed token; answered at once, without a promise, when
 * the store knows its keys in memory (SQLite: a known token costs two map lookups).
 */
export function identifyKey(store: KeyFinder, header: string | undefined): MaybePromise<KeyMatch> {
  const token = bearerToken(header);
  const hash = hashes.get(token);
  if (hash === undefined) return identifyNewToken(store, token);
  const key = store.findKeyByHash(hash);
  return isPromise(key) ? key.then((found) => matchOf(found, hash)) : matchOf(key, hash);
}

/** identifyKey for a token not in the memo: its checksum and SHA-256, then the key, vouching for it if live. */
function identifyNewToken(store: KeyFinder, token: string): MaybePromise<KeyMatch> {
  if (!isWellFormedToken(token)) throw unauthorized('The bearer token is malformed.');
  const hash = hashToken(token);
  if (hashes.size >= HASHES_HELD) hashes.clear();
  hashes.set(token, hash);
  const vouch = (found: StoredKey | undefined): KeyMatch => {
    const match = matchOf(found, hash);
    if (match.token !== 'retired' && match.key.revoked_at === null) {
      // Starting over, the memo goes too, so that every live token is vouched for again on its next use.
      if (vouched.size >= HASHES_HELD) {
        vouched.clear();
        hashes.clear();
        hashes.set(token, hash);
      }
      vouched.add(token);
    }
    return match;
  };
  const key = store.findKeyByHash(hash);
  return isPromise(key) ? key.then(vouch) : vouch(key);
}

/** Whether an Authorization header carries a token this process has seen name a live key. */
export function isVouchedFor(header: string | undefined): boolean {
  try {
    return vouched.has(bearerToken(header));
  } catch {
    return false;
  }
}

/** A 401 unless the key is live: not revoked, not expired, and a rotated-out token still in its grace. */
export function requireLive({ key, token }: KeyMatch, now = Date.now()): void {
  if (key.revoked_at !== null) throw unauthorized('The bearer token has been revoked.');
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) {
    throw unauthorized('The bearer token has expired.');
  }
  const graceEnds = token === 'previous' ? key.previous_expires_at : null;
  if (token !== 'current' && (graceEnds === null || Date.parse(graceEnds) <= now)) {
    throw unauthorized('The bearer token was rotated and its grace period has ended.');
  }
}

/** A 403 unless the key holds one of the scopes; none asked for: any key will do. */
export function requireScopes(key: ApiKey, scopes: readonly Scope[]): void {
  if (scopes.length === 0) return;
  for (let i = 0; i < scopes.length; i++) if (key.scopes.includes(scopes[i]!)) return;
  if (scopes.length === 1) {
    const scope = scopes[0]!;
    throw new ProblemError('forbidden', `This key lacks the ${scope} scope.`, { required_scope: scope });
  }
  const either = scopes.join(' or ');
  throw new ProblemError('forbidden', `This key lacks the ${either} scope.`, { required_scopes: scopes });
}
