// The SQLite backend: one file, WAL, every statement prepared once at open; each role in its own file here.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ENTITIES } from '../../vocabulary/entities.js';
import { fileModes, privateFile, tighten } from '../file-modes.js';
import { type BackgroundBuild, type Reconciled, ServingIndex } from '../serving/serving-index.js';
import { IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { composeStore } from '../store.js';
import { STDERR_LOG, type StoreLog } from '../store-log.js';
import { SqliteAccounting } from './accounting.js';
import { SqliteBulk } from './bulk.js';
import { SqliteChanges } from './changes.js';
import { SqliteHealth } from './health.js';
import { startEarly, startIndexBuild } from './index-build.js';
import { SqliteKeys } from './keys.js';
import { SqliteLists } from './lists.js';
import { SqliteRecordWrites } from './record-writes.js';
import { SqliteRecords } from './records.js';
import { applyPragmas, checkSchema, migrate } from './schema.js';
import { SqliteSearch } from './search.js';
import { SearchThread } from './search-thread.js';
import { registerSearchFunctions, SqliteSearchWrites } from './search-writes.js';
import { SqliteSessions } from './sessions.js';
import { TurnSnapshot } from './snapshot.js';
import { SqliteSuppression } from './suppression.js';
import { SqliteWatchlists } from './watchlists.js';
import { SqliteWebhooks } from './webhooks.js';

export interface SqliteStoreOptions {
  /** Open an existing database without writing to it (no migration, no WAL switch). */
  readonly?: boolean;
  /**
   * Lookups (records and keys) of one event-loop turn read one snapshot, in one transaction, so each
   * costs no file locking; a commit elsewhere is seen from the next turn (for a server).
   */
  turnSnapshots?: boolean;
  /**
   * Keep the serving index beside the file (default true; never for `:memory:` or read-only): lookups
   * read it without SQL, and every record write keeps it in line. Off only for a connection that
   * writes no records (the accounting writer thread).
   */
  servingIndex?: boolean;
  /**
   * Run searches on a worker thread with a read-only connection of its own (for a server; never for
   * `:memory:`): a costly search then never holds the event loop that answers lookups.
   */
  searchThread?: boolean;
  /** Each search's budget of work, in milliseconds (default SEARCH_BUDGET_MS): for tests. */
  searchBudgetMs?: number;
  /**
   * How long a write waits for another connection's write lock before SQLite answers busy (default 5 s;
   * set once the file is migrated). Short for a connection that would rather retry than block its thread.
   */
  busyTimeoutMs?: number;
  /**
   * A server's store: an index that must be built (new, of another layout, behind a restored file, left
   * half-built) is built in slices between the event loop's other work, and lookups read SQLite until it
   * is in service; without it, opening the store builds it first.
   */
  indexInBackground?: boolean;
}

/** How often a server's store checks that its serving index is current (repairs after a writer's crash). */
const RECONCILE_EVERY_MS = 1000;

/** A build in the background that lasts this long is announced in the log, and so is its end. */
const ANNOUNCE_AFTER_MS = 1000;

/** Where the serving index of a SQLite file lives: beside it. */
export const servingIndexPath = (dbPath: string) => `${dbPath}-index`;

/** The roles of one connection, sharing its turn snapshot and its record writes. */
function sqliteRoles(db: Database.Database, searchBudgetMs: number | undefined) {
  const snapshot = new TurnSnapshot(db);
  const searchWrites = new SqliteSearchWrites(db);
  const changes = new SqliteChanges(db, snapshot);
  const writes = new SqliteRecordWrites(db, searchWrites, changes);
  const bulk = new SqliteBulk(db, () => writes.nextGeneration(), searchWrites, changes);
  return {
    snapshot,
    writes,
    roles: {
      records: new SqliteRecords(db, writes, bulk, snapshot),
      search: new SqliteSearch(db, snapshot, searchBudgetMs),
      keys: new SqliteKeys(db, snapshot),
      accounting: new SqliteAccounting(db, snapshot),
      suppression: new SqliteSuppression(db, writes, snapshot),
      watchlists: new SqliteWatchlists(db, snapshot),
      health: new SqliteHealth(db),
      changes,
      webhooks: new SqliteWebhooks(db, snapshot),
      lists: new SqliteLists(db, snapshot),
      sessions: new SqliteSessions(db, snapshot),
    },
  };
}

/** The Store on SQLite, with what only it offers: its serving index, turn snapshots and data version. */
function sqliteStore(db: Database.Database, searchBudgetMs: number | undefined) {
  const { snapshot, writes, roles } = sqliteRoles(db, searchBudgetMs);
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let index: ServingIndex | undefined;
  let reconciler: NodeJS.Timeout | undefined;
  let thread: SearchThread | undefined;
  let inBackground = false;
  const log: StoreLog = { ...STDERR_LOG };
  /** True once a build in the background has been announced: one that takes a second or more. */
  let announced = false;
  /** Builds claimed entities of the index on a thread of its own (index-build-worker.ts), reporting as it goes. */
  const buildThread = (indexPath: string): BackgroundBuild => ({
    run: (claims) => {
      // A server that ends stops the build first (close); a process that just exits leaves it to the next.
      const thread = startIndexBuild({ dbPath: db.name, indexPath, claims }, false, (entity, ms) => {
        if (announced)
          log.info(`serving index: ${entity} built in ${(ms / 1000).toFixed(1)} s; lookups read it`);
      });
      const done = thread.done.then(({ failure }) => {
        if (failure === undefined || thread.stopped()) return;
        log.warn(`serving index: the build failed (${failure}); lookups read SQLite, trying again`);
        setTimeout(() => {
          try {
            if (db.open) store.reconcileIndex();
          } catch (again) {
            log.warn(`serving index: cannot build (${(again as Error).message})`);
          }
        }, RECONCILE_EVERY_MS).unref();
      });
      return { done, stop: thread.stop };
    },
  });
  /** A reconcile; a server's builds in the background, announced when they take a second or more. */
  let indexPath = '';
  const reconcile = (): Reconciled => {
    if (!inBackground) return index!.reconcile();
    const reconciled = index!.reconcile({ inBackground: buildThread(indexPath) });
    if (reconciled === 'rebuilding') {
      setTimeout(() => {
        if (!index?.rebuilding || announced) return;
        announced = true;
        log.info('serving index: building in the background; lookups read SQLite meanwhile');
      }, ANNOUNCE_AFTER_MS).unref();
    }
    return reconciled;
  };
  const store = composeStore(roles, {
    /**
     * Opens the serving index at `path`, bringing it in line with this store first (a rebuild, when it
     * is new or does not match; in the background with `inBackground`). From now on every record write
     * goes through it and lookups read it.
     * @returns what opening it took: `current`, `repaired`, `rebuilt`, `rebuilding` (in the background),
     * or `busy` (another process builds)
     */
    serveFromIndex: (path: string, opts: { inBackground?: boolean } = {}): Reconciled => {
      snapshot.end();
      roles.records.finishAbandonedBulks();
      index = ServingIndex.open(path, writes, IDENTIFIER_KIND_CODES);
      indexPath = path;
      // A bulk load's part is built on a thread of its own while this one builds SQLite's indexes.
      roles.records.serveFrom(index, () => startEarly({ dbPath: db.name, indexPath: path }));
      roles.keys.serveFrom(index);
      inBackground = opts.inBackground ?? false;
      return reconcile();
    },
    /**
     * Checks that the index is current, finishing the bulk loads and repairing the writes of processes
     * that died half-way, and rebuilding an index that no longer matches the store. Undefined without one.
     */
    reconcileIndex: (): Reconciled | undefined => {
      if (!index) return undefined;
      snapshot.end();
      roles.records.finishAbandonedBulks();
      return reconcile();
    },
    /** True while this process builds the serving index in the background (its lookups read SQLite). */
    indexRebuilding: (): boolean => index?.rebuilding ?? false,
    /** True when lookups of every entity read the serving index; false while one is built; undefined without one. */
    indexServing: (): boolean | undefined => index && ENTITIES.every((entity) => index!.ready(entity)),
    /** Sends what the serving index does in the background to the app's logger, once there is one. */
    logLocalTo: (to: StoreLog): void => {
      log.info = (message) => to.info(message);
      log.warn = (message) => to.warn(message);
    },
    /**
     * For a server: reconciles the index every second, repairing what a writer that died half-way left
     * (its intent names the records). Not while a dead process's bulk load is unfinished: finishing one
     * builds SQLite's own indexes, minutes on the event loop at millions of records, so the next process
     * to open the store finishes it, as before.
     */
    watchIndex: (onError: (error: unknown) => void): void => {
      if (!index || reconciler) return;
      reconciler = setInterval(() => {
        try {
          if (roles.records.abandonedBulks().length > 0) return;
          store.reconcileIndex();
        } catch (error) {
          onError(error);
        }
      }, RECONCILE_EVERY_MS);
      reconciler.unref();
    },
    /** From now on, the lookups of one event-loop turn share one read transaction (TurnSnapshot). */
    snapshotPerTurn: (): void => snapshot.perTurn(),
    /** From now on, searches run on a worker thread reading the file at `path` (search-thread.ts). */
    searchOnThread: (path: string): void => {
      thread ??= new SearchThread(path, searchBudgetMs);
      roles.search.offload(thread);
    },
    /** PRAGMA data_version: changes when another connection commits, so a server can drop caches. */
    dataVersion: (): number => dataVersion.get()!,
    close: async (): Promise<void> => {
      clearInterval(reconciler);
      roles.changes.close();
      await thread?.close();
      snapshot.end();
      await index?.close();
      if (!db.open) return;
      try {
        if (!db.readonly) db.pragma('optimize');
      } catch {
        // Statistics for the planner, best effort: on a full disk the store must still close.
      }
      db.close();
    },
  });
  return store;
}

export type SqliteStore = ReturnType<typeof sqliteStore>;

/**
 * The store's file made (or tightened) to be the service's own before SQLite opens it; SQLite makes its
 * WAL, shared memory and rollback journal with the file's mode, and those left by earlier versions are
 * tightened. A directory it makes for the file is private too (an existing one is left as it is).
 */
function createPrivately(path: string): void {
  const modes = fileModes();
  mkdirSync(dirname(path), { recursive: true, mode: modes.dir });
  privateFile(path, modes);
  for (const companion of ['-wal', '-shm', '-journal']) tighten(`${path}${companion}`, modes.file);
}

/**
 * Opens (and on first use creates) a SQLite store.
 * @example const store = openSqliteStore('./data/enrich.db');
 */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const readonly = opts.readonly ?? false;
  if (!readonly && path !== ':memory:') createPrivately(path);
  const db = new Database(path, { readonly, fileMustExist: readonly });
  try {
    applyPragmas(db, readonly);
    registerSearchFunctions(db);
    if (readonly) checkSchema(db);
    else migrate(db);
    if (opts.busyTimeoutMs !== undefined)
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
    const store = sqliteStore(db, opts.searchBudgetMs);
    const index = opts.servingIndex ?? true;
    if (index && !readonly && path !== ':memory:') {
      store.serveFromIndex(servingIndexPath(path), { inBackground: opts.indexInBackground ?? false });
    }
    if (opts.turnSnapshots) store.snapshotPerTurn();
    if (opts.searchThread && path !== ':memory:') store.searchOnThread(path);
    return store;
  } catch (error) {
    db.close();
    throw error;
  }
}
