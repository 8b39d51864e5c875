// Where a store says what its index does on its own (a build in the background, following PostgreSQL):
// standard error, until a server gives it its logger.

export interface StoreLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Until the server's logger is given: a line each on standard error. */
export const STDERR_LOG: StoreLog = {
  info: (message) => process.stderr.write(`${message}\n`),
  warn: (message) => process.stderr.write(`${message}\n`),
};
