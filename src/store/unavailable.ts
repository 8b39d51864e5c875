// The store could not be reached: the HTTP layer answers 503 `unavailable` with Retry-After, readiness fails.
import { StoreUnavailableError } from '../errors.js';

export { StoreUnavailableError };

// Socket-level failures reported by Node when a server is down, unreachable or drops the connection.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // a Unix socket that is gone with its server
]);

// SQLSTATEs meaning "the server cannot serve you now": connection exceptions (class 08, tested below),
// administrator or crash shutdown, starting up or in recovery, too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

const DROPPED_CONNECTION =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed/i;

/** Whether an error from a database driver means the database is unreachable rather than the query wrong. */
export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  if (err instanceof AggregateError && err.errors.some(isConnectionFailure)) return true;
  return DROPPED_CONNECTION.test(err.message);
}

/**
 * SQLite's answer when another connection holds the lock a write needs (`SQLITE_BUSY`, and its extended
 * codes such as `SQLITE_BUSY_SNAPSHOT`) and its busy timeout ran out: the same write may succeed shortly.
 */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Rethrows a connection failure as StoreUnavailableError and anything else unchanged. */
export function toStoreError(err: unknown): unknown {
  return isConnectionFailure(err) ? new StoreUnavailableError({ cause: err }) : err;
}
