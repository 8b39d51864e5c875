// The PostgreSQL backend: lookups on a read pool (a replica when DATABASE_READ_URL is set), writes on the
// primary; each role in its own file here.
import type pg from 'pg';
import { composeStore } from '../store.js';
import { toStoreError } from '../unavailable.js';
import { PostgresAccounting } from './accounting.js';
import { PostgresHealth } from './health.js';
import { PostgresKeys } from './keys.js';
import { DatabaseNotMigratedError, schemaVersion } from './migrate.js';
import { LATEST_POSTGRES_VERSION } from './migrations.js';
import { createPool } from './pool.js';
import { PostgresRecords } from './records.js';
import { PostgresSearch } from './search.js';
import { PostgresSuppression } from './suppression.js';
import { PostgresWatchlists } from './watchlists.js';
import { PostgresWebhooks } from './webhooks.js';

export { DatabaseNotMigratedError, migratePostgres, postgresSchemaStatus } from './migrate.js';

export interface PostgresStoreOptions {
  /** The primary: every write, and every read when there is no readUrl. */
  url: string;
  /** A read replica for lookups (findIds, getRecord, findRecords, exportBodies, findKeyByHash, searches). */
  readUrl?: string;
  /** Connections per pool; 10 when not given. */
  poolSize?: number;
  /** Told when an idle connection fails (the server went away); the store recovers by itself. */
  onConnectionError?: (err: Error) => void;
}

/** The Store on PostgreSQL, over a primary and a read pool (the same pool when there is no replica). */
function postgresStore(primary: pg.Pool, replica: pg.Pool) {
  const records = new PostgresRecords(primary, replica);
  const roles = {
    records,
    search: new PostgresSearch(replica),
    keys: new PostgresKeys(primary, replica),
    accounting: new PostgresAccounting(primary),
    suppression: new PostgresSuppression(primary, records),
    watchlists: new PostgresWatchlists(primary),
    health: new PostgresHealth(primary, replica),
    webhooks: new PostgresWebhooks(primary),
  };
  return composeStore(roles, {
    close: async (): Promise<void> => {
      await Promise.all([primary.end(), replica === primary ? undefined : replica.end()]);
    },
  });
}

export type PostgresStore = ReturnType<typeof postgresStore>;

/**
 * Connects to PostgreSQL and checks the schema is migrated.
 * @throws DatabaseNotMigratedError when the schema is behind this build; StoreUnavailableError when unreachable.
 * @example const store = await openPostgresStore({ url: process.env.DATABASE_URL! })
 */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const poolOptions = { size: opts.poolSize, onError: opts.onConnectionError };
  const primary = createPool({ url: opts.url, ...poolOptions });
  const replica = opts.readUrl ? createPool({ url: opts.readUrl, ...poolOptions }) : primary;
  const store = postgresStore(primary, replica);
  try {
    const current = await schemaVersion(primary).catch((err) => Promise.reject(toStoreError(err)));
    if (current < LATEST_POSTGRES_VERSION)
      throw new DatabaseNotMigratedError(current, LATEST_POSTGRES_VERSION);
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
