// What a log line may say of an error: its kind, message, code and stack, and its causes', with every
// password of the configured connection URLs masked — never a driver's other fields (an ioredis error
// carries the AUTH command and its password; a PostgreSQL one, values of the row it refused).
import { maskSecrets } from './config.js';

export interface LoggedError {
  type: string;
  message: string;
  code?: string | number;
  stack?: string;
  cause?: unknown;
  errors?: unknown[];
}

/** Causes followed at most this deep. */
const DEPTH = 3;

/** An error as a log line shows it. */
export function loggedError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? maskSecrets(error) : error;
  const logged: LoggedError = { type: error.constructor.name, message: maskSecrets(error.message) };
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' || typeof code === 'number') logged.code = code;
  if (error.stack) logged.stack = maskSecrets(error.stack);
  if (depth < DEPTH && error.cause !== undefined) logged.cause = loggedError(error.cause, depth + 1);
  if (depth < DEPTH && error instanceof AggregateError) {
    logged.errors = error.errors.map((inner) => loggedError(inner, depth + 1));
  }
  return logged;
}

/** pino's serializers for the app's logger: `err` as loggedError shows it. */
export const safeLogSerializers = {
  err: (error: unknown) => {
    const logged = loggedError(error);
    if (typeof logged === 'object' && logged !== null && 'type' in logged) {
      return { ...(logged as LoggedError), stack: (logged as LoggedError).stack ?? '' };
    }
    return { type: typeof error, message: maskSecrets(String(error)), stack: '' };
  },
};
