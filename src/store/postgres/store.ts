// The PostgreSQL backend: lookups on a read pool (a replica when DATABASE_READ_URL is set), writes on the
// primary; each role in its own file here.
import type pg from 'pg';
import { LocalIndex } from '../local/local-index.js';
import { composeStore, type LocalIndexStatus } from '../store.js';
import { STDERR_LOG, type StoreLog } from '../store-log.js';
import { toStoreError } from '../unavailable.js';
import { PostgresAccounting } from './accounting.js';
import { PostgresChanges } from './changes.js';
import { PostgresFollower } from './follow.js';
import { PostgresHealth } from './health.js';
import { PostgresKeys } from './keys.js';
import { PostgresLists } from './lists.js';
import { DatabaseNotMigratedError, schemaVersion } from './migrate.js';
import { LATEST_POSTGRES_VERSION } from './migrations.js';
import { createPool } from './pool.js';
import { PostgresRecords } from './records.js';
import { PostgresSearch, SEARCH_TIMEOUT_MS } from './search.js';
import { PostgresSessions } from './sessions.js';
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
  /**
   * A directory of this machine's own for the local index (a server's store): lookups and keys are then
   * read from it, without a query, and it follows the change log (../local/local-index.ts, follow.ts).
   */
  localDir?: string;
}

/** The writes a server's own lookups must see at once: each waits, after its commit, for the local index. */
const FOLLOWED_WRITES = [
  'upsert',
  'delete',
  'suppress',
  'unsuppress',
  'createKey',
  'updateKey',
  'revokeKey',
  'rotateKey',
] as const;

/** Connections the searches of one process share: more searches wait their turn. */
const SEARCH_CONNECTIONS = 4;

/** The Store on PostgreSQL, over a primary and a read pool (the same pool when there is no replica). */
function postgresStore(primary: pg.Pool, replica: pg.Pool, searches: pg.Pool, opts: PostgresStoreOptions) {
  const records = new PostgresRecords(primary, replica);
  const changes = new PostgresChanges(primary, opts.url, opts.onConnectionError);
  const keys = new PostgresKeys(primary, replica);
  const local = opts.localDir === undefined ? undefined : LocalIndex.open(opts.localDir);
  const log = { ...STDERR_LOG };
  const follower = local && new PostgresFollower(primary, changes, local, log);
  if (local) {
    records.serveFrom(local);
    keys.serveFrom(local);
  }
  const roles = {
    records,
    search: new PostgresSearch(searches),
    keys,
    accounting: new PostgresAccounting(primary),
    suppression: new PostgresSuppression(primary, records),
    watchlists: new PostgresWatchlists(primary),
    health: new PostgresHealth(primary, replica),
    changes,
    webhooks: new PostgresWebhooks(primary),
    lists: new PostgresLists(primary),
    sessions: new PostgresSessions(primary),
  };
  const store = composeStore(roles, {
    /** What the local index's follower does; undefined without a local index. */
    localStatus: (): LocalIndexStatus | undefined => follower?.status(),
    /** Sends the follower's messages to the app's logger, once there is one. */
    logLocalTo: (to: StoreLog): void => {
      log.info = (message) => to.info(message);
      log.warn = (message) => to.warn(message);
    },
    /** Starts following the change log into the local index (once the schema is known to be current). */
    follow: (): void => follower?.start(),
    close: async (): Promise<void> => {
      await follower?.close();
      await local?.close();
      changes.close();
      await Promise.all([primary.end(), replica === primary ? undefined : replica.end(), searches.end()]);
    },
  });
  if (follower) {
    const writes = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of FOLLOWED_WRITES) {
      const write = writes[name]!;
      writes[name] = async (...args) => {
        const result = await write(...args);
        await follower.caughtUp().catch(() => {});
        return result;
      };
    }
  }
  return store;
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
  // Searches have connections of their own, each statement bounded: however costly, they neither take
  // the lookups' connections nor run on unbounded.
  const searches = createPool({
    url: opts.readUrl ?? opts.url,
    size: SEARCH_CONNECTIONS,
    onError: opts.onConnectionError,
    statementTimeoutMs: SEARCH_TIMEOUT_MS,
  });
  const store = postgresStore(primary, replica, searches, opts);
  try {
    const current = await schemaVersion(primary).catch((err) => Promise.reject(toStoreError(err)));
    if (current < LATEST_POSTGRES_VERSION)
      throw new DatabaseNotMigratedError(current, LATEST_POSTGRES_VERSION);
    store.follow();
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
