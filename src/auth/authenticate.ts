// Bearer authentication (contract §4): header → well-formed token → key by hash → live key → scope.
import { ProblemError } from '../errors.js';
import {
  type ApiKey,
  isPromise,
  type MaybePromise,
  type Scope,
  type Store,
  type StoredKey,
} from '../store/store.js';
import { hashToken, isWellFormedToken } from './tokens.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="enrich"' };
const INVALID_TOKEN = { 'www-authenticate': 'Bearer realm="enrich", error="invalid_token"' };

const unauthorized = (detail: string, headers = INVALID_TOKEN) =>
  new ProblemError('unauthorized', detail, {}, headers);

/** How many token hashes are remembered before the memo starts over. */
const HASHES_HELD = 10_000;
const hashes = new Map<string, string>();

/**
 * The SHA-256 hash of a well-formed token, or undefined for a malformed one. Hashes of tokens seen
 * lately are remembered — a hash is a pure function of its token, so the memo is never stale — and a
 * known token costs neither its checksum nor SHA-256 again.
 */
function hashOf(token: string): string | undefined {
  let hash = hashes.get(token);
  if (hash === undefined) {
    if (!isWellFormedToken(token)) return undefined;
    hash = hashToken(token);
    if (hashes.size >= HASHES_HELD) hashes.clear();
    hashes.set(token, hash);
  }
  return hash;
}

/**
 * The key a token named, and which of its tokens it was: the current one, the one the last rotation
 * replaced (accepted during its grace period), or one an earlier rotation replaced (never accepted).
 */
export interface KeyMatch {
  key: StoredKey;
  token: 'current' | 'previous' | 'retired';
}

function matchOf(key: StoredKey | undefined, hash: string): KeyMatch {
  if (!key) throw unauthorized('The bearer token is not recognised.');
  const token = key.hash === hash ? 'current' : key.previous_hash === hash ? 'previous' : 'retired';
  return { key, token };
}

/**
 * The key a request's Authorization header names, live or not, or a 401 (thrown, or the promise's
 * rejection). Never reads the store for a malformed token; answered at once, without a promise, when
 * the store knows its keys in memory (SQLite: a known token costs two map lookups).
 */
export function identifyKey(store: Store, header: string | undefined): MaybePromise<KeyMatch> {
  if (header === undefined || header === '') {
    throw unauthorized('An Authorization: Bearer <token> header is required.', CHALLENGE);
  }
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') {
    throw unauthorized('The Authorization header must be of the form "Bearer <token>".');
  }
  const token = header.slice(space + 1).trim();
  const hash = hashOf(token);
  if (hash === undefined) throw unauthorized('The bearer token is malformed.');
  const key = store.findKeyByHash(hash);
  return isPromise(key) ? key.then((found) => matchOf(found, hash)) : matchOf(key, hash);
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

/** The live key a request's Authorization header names, or a 401. */
export async function authenticate(
  store: Store,
  header: string | undefined,
  now = Date.now(),
): Promise<StoredKey> {
  const match = await identifyKey(store, header);
  requireLive(match, now);
  return match.key;
}

/** A 403 unless the key holds the scope. */
export function requireScope(key: ApiKey, scope: Scope): void {
  if (!key.scopes.includes(scope)) {
    throw new ProblemError('forbidden', `This key lacks the ${scope} scope.`, { required_scope: scope });
  }
}
