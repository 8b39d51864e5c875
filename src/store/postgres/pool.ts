// node-postgres pools that survive their server going away: failures surface as StoreUnavailableError.
import pg from 'pg';
import { isConnectionFailure, StoreUnavailableError, toStoreError } from '../unavailable.js';

export interface PoolOptions {
  url: string;
  size?: number;
  /** Told of errors on idle connections (the server went away); the pool drops those connections itself. */
  onError?: (err: Error) => void;
  /** PostgreSQL cancels any statement of the pool's that runs longer (statement_timeout); none when absent. */
  statementTimeoutMs?: number;
}

/** A pool whose idle-connection errors are reported, never thrown, so a lost server cannot crash the process. */
export function createPool({ url, size = 10, onError, statementTimeoutMs }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    // Fail fast rather than queue forever while the server is unreachable; detect half-open sockets.
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => onError?.(err));
  return pool;
}

/** A pool, or one of its connections inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

/** Runs one query on a pool (or a connection), mapping connection failures to StoreUnavailableError. */
export async function query<R extends pg.QueryResultRow>(
  pool: Queryable,
  config: pg.QueryConfig,
): Promise<pg.QueryResult<R>> {
  try {
    return await pool.query<R>(config);
  } catch (err) {
    throw toStoreError(err);
  }
}

/**
 * Runs `work` in one transaction on one connection, rolling back on any failure. A connection that
 * failed is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toStoreError(err);
  }
  // A checked-out client has no pool listener: without this, a dropped connection would be an
  // unhandled 'error' event. The failure itself reaches us through the pending query.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (isConnectionFailure(err)) broken ??= err as Error;
    if (!broken) await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    // A stream cut short ("Premature close") says nothing of why; a connection that broke meanwhile does.
    if (isConnectionFailure(broken)) throw new StoreUnavailableError({ cause: err });
    throw toStoreError(err);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
