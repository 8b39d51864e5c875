// Chooses the backend: PostgreSQL when a DATABASE_URL is configured, else the embedded SQLite file.
import type { Store } from './store.js';

export interface StoreLocation {
  dbPath: string;
  databaseUrl?: string | undefined;
  databaseReadUrl?: string | undefined;
  /** A server's store: SQLite lookups of one event-loop turn share one read transaction. */
  turnSnapshots?: boolean;
  /** SQLite: keep the serving index beside the file (default true); off for a connection that writes no records. */
  servingIndex?: boolean;
  /** A server's store: a SQLite serving index that must be built is built in the background (lookups read SQL meanwhile). */
  indexInBackground?: boolean;
  /** A server's store: SQLite searches run on a worker thread, off the event loop that answers lookups. */
  searchThread?: boolean;
  /** A server's store on PostgreSQL: the directory of its local index (lookups read it; none when absent). */
  localDir?: string | undefined;
  /** SQLite: how long a write waits for another process's write lock before failing busy (default 5 s). */
  busyTimeoutMs?: number;
}

/** Opens the configured store; backends are loaded on demand so the embedded default never loads `pg`. */
export async function openStore(location: StoreLocation): Promise<Store> {
  if (location.databaseUrl) {
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore({
      url: location.databaseUrl,
      readUrl: location.databaseReadUrl,
      localDir: location.localDir,
    });
  }
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore(location.dbPath, {
    turnSnapshots: location.turnSnapshots ?? false,
    servingIndex: location.servingIndex ?? true,
    searchThread: location.searchThread ?? false,
    indexInBackground: location.indexInBackground ?? false,
    ...(location.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: location.busyTimeoutMs }),
  });
}

/** Where the store is, for messages: never a password. */
export function describeStore(location: StoreLocation): string {
  if (!location.databaseUrl) return `SQLite ${location.dbPath}`;
  const url = new URL(location.databaseUrl);
  return `PostgreSQL ${url.host}${url.pathname}`;
}
