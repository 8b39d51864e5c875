// The console's sessions (contract §9): a key's token exchanged for a random session id carried by an
// HttpOnly cookie; the store keeps only the id's hash, so that any server or worker sees a sign-in and a
// sign-out. A session stands for the token it was opened with: revoking, expiring or rotating that token out
// ends it, as it would end the token's own requests.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors.js';
import type { KeyStore } from '../store/keys.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { ConsoleSession, SessionStore } from '../store/sessions.js';
import { type KeyMatch, matchOf } from './authenticate.js';

export const SESSION_COOKIE = 'enrich_session';
/** A session unused for this long has ended. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session's last use is written at most this often: a request in between costs no write. */
const TOUCH_EVERY_MS = 60_000;

/** Methods that change nothing, and so need no Origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const ended = () => new ProblemError('unauthorized', 'The console session has ended: sign in again.');

export const hashSessionId = (id: string) => createHash('sha256').update(id).digest('hex');

/** The session id a Cookie header carries, if any. */
export function sessionIdOf(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * A 403 unless a state-changing request names this server as its Origin: a page elsewhere cannot make the
 * browser act with the console's cookie (SameSite=Strict already keeps it from being sent cross-site).
 */
export function requireSameOrigin(req: IncomingMessage): void {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return;
  const origin = req.headers.origin;
  let host: string | undefined;
  try {
    host = origin === undefined || origin === 'null' ? undefined : new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== req.headers.host) {
    throw new ProblemError(
      'origin_mismatch',
      "A request made with the console's session must carry this server's Origin header.",
    );
  }
}

/** The Set-Cookie value of a session: `secure` when the console was reached over HTTPS. */
export function sessionCookie(id: string, secure: boolean): string {
  const flags = [`Max-Age=${SESSION_IDLE_MS / 1000}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  return [`${SESSION_COOKIE}=${id}`, ...flags, ...(secure ? ['Secure'] : [])].join('; ');
}

/** The Set-Cookie value that removes the session's cookie from the browser. */
export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, 'Max-Age=0', 'Path=/', 'HttpOnly', 'SameSite=Strict']
    .concat(secure ? ['Secure'] : [])
    .join('; ');
}

export type SessionDeps = SessionStore & Pick<KeyStore, 'findKeyByHash'>;

/** How often signing in also deletes the sessions idle past their expiry (no timer of its own). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export class ConsoleSessions {
  private prunedAt = 0;

  constructor(
    private readonly store: SessionDeps,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session for a live key's token (by its hash); returns the id the cookie carries. */
  async open(keyId: string, keyHash: string): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const at = new Date(this.now()).toISOString();
    await this.store.createSession(hashSessionId(id), {
      key_id: keyId,
      key_hash: keyHash,
      created_at: at,
      last_seen_at: at,
    });
    if (this.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = this.now();
      this.store.pruneSessions(new Date(this.now() - SESSION_IDLE_MS)).catch(() => {}); // tried again in an hour
    }
    return id;
  }

  /** Ends a session; false when it had already ended. */
  close(id: string): Promise<boolean> {
    return this.store.deleteSession(hashSessionId(id));
  }

  /**
   * The key a request's session stands for, live or not (admission checks that), or a 401 for a session
   * unknown, ended or idle too long, or a 403 for a state-changing request from another origin.
   */
  identify(req: IncomingMessage, id: string): MaybePromise<KeyMatch> {
    const hash = hashSessionId(id);
    const session = this.store.findSession(hash);
    if (isPromise(session)) return session.then((found) => this.found(req, hash, found));
    return this.found(req, hash, session);
  }

  private found(
    req: IncomingMessage,
    hash: string,
    session: ConsoleSession | undefined,
  ): MaybePromise<KeyMatch> {
    if (session === undefined) throw ended();
    const now = this.now();
    const idle = now - Date.parse(session.last_seen_at);
    if (idle >= SESSION_IDLE_MS) {
      this.store.deleteSession(hash).catch(() => {}); // gone either way: the next prune takes it
      throw ended();
    }
    requireSameOrigin(req);
    if (idle >= TOUCH_EVERY_MS) this.store.touchSession(hash, new Date(now)).catch(() => {});
    const key = this.store.findKeyByHash(session.key_hash);
    if (isPromise(key)) return key.then((found) => matchOf(found, session.key_hash));
    return matchOf(key, session.key_hash);
  }
}
