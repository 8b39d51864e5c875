// The Store the app receives: one object answering every role, each method that of the backend's role object.

import type { AccountingStore } from './accounting.js';
import type { ChangeStore } from './changes.js';
import type { HealthStore } from './health.js';
import type { KeyStore } from './keys.js';
import type { ListStore } from './lists.js';
import type { RecordStore } from './records.js';
import type { SearchStore } from './search.js';
import type { SessionStore } from './sessions.js';
import type { StoreLog } from './store-log.js';
import type { SuppressionStore } from './suppression.js';
import type { WatchlistStore } from './watchlists.js';
import type { WebhookStore } from './webhooks.js';

/**
 * Every role of a backend in one object. Consumers take the roles they use (auth a KeyStore, search a
 * SearchStore, …); only what opens and closes the store holds all of it.
 */
export interface Store
  extends RecordStore,
    SearchStore,
    KeyStore,
    AccountingStore,
    SuppressionStore,
    HealthStore,
    ChangeStore,
    WatchlistStore,
    WebhookStore,
    ListStore,
    SessionStore {
  close(): Promise<void>;
  /** A server's store on PostgreSQL with a local index: what its follower does (readiness, metrics). */
  localStatus?(): LocalIndexStatus | undefined;
  /** SQLite: a server reconciles its serving index every second (repairs what a dead writer left). */
  watchIndex?(onError: (error: unknown) => void): void;
  /** SQLite: true when lookups of every entity read the serving index, false while one is being built. */
  indexServing?(): boolean | undefined;
  /** Sends what the store's index does on its own (a build in the background, following PostgreSQL) to the app's logger. */
  logLocalTo?(log: StoreLog): void;
}

/** What a local index's follower does (src/store/postgres/follow.ts). */
export interface LocalIndexStatus {
  /** `standby`: another process of the machine follows; `building`: lookups read PostgreSQL meanwhile. */
  phase: 'starting' | 'building' | 'following' | 'standby';
  /** Why the last round failed (PostgreSQL unreachable, say); undefined when it did not. */
  problem: string | undefined;
  /** The commit time of the last change applied, ISO-8601. */
  appliedAt: string | undefined;
  /** Lookups read the local index now (built, current, of this store). */
  serving: boolean;
}

/**
 * A backend's implementation of each role (src/store/sqlite/<role>.ts, src/store/postgres/<role>.ts). A new
 * role is one more interface here, in ROLE_METHODS and on each backend. The change log, for one, is written
 * in the transaction of the record writes it logs: on SQLite by SqliteRecordWrites and SqliteBulk, on
 * PostgreSQL by the writes PostgresRecords.transaction runs.
 */
export interface StoreRoles {
  records: RecordStore;
  search: SearchStore;
  keys: KeyStore;
  accounting: AccountingStore;
  suppression: SuppressionStore;
  watchlists: WatchlistStore;
  health: HealthStore;
  changes: ChangeStore;
  webhooks: WebhookStore;
  lists: ListStore;
  sessions: SessionStore;
}

/**
 * The methods of each role, as the Store answers them: every one, and nothing else (a method added to a
 * role and not here fails to compile).
 */
const ROLE_METHODS = {
  records: {
    findIds: true,
    getRecord: true,
    findRecords: true,
    upsert: true,
    beginBulkLoad: true,
    delete: true,
    exportBodies: true,
    exportIds: true,
    exportEtags: true,
    count: true,
  },
  search: { searchPeople: true, searchCompanies: true },
  keys: {
    createKey: true,
    findKeyByHash: true,
    getKey: true,
    listKeys: true,
    updateKey: true,
    revokeKey: true,
    rotateKey: true,
  },
  accounting: {
    quotaUsed: true,
    addQuotaUse: true,
    addUsage: true,
    usage: true,
    addMinutes: true,
    minutes: true,
    pruneMinutes: true,
    addAudit: true,
    audit: true,
    pruneAudit: true,
    foldJournal: true,
    journalOffset: true,
    forgetJournal: true,
  },
  suppression: { suppress: true, unsuppress: true, suppressedHashes: true },
  health: { ping: true, sizeBytes: true },
  changes: {
    readChanges: true,
    changeBounds: true,
    watchChanges: true,
    pruneChanges: true,
    changesAppended: true,
  },
  watchlists: {
    createWatchlist: true,
    getWatchlist: true,
    listWatchlists: true,
    deleteWatchlist: true,
    addWatchEntries: true,
    listWatchEntries: true,
    deleteWatchEntry: true,
    watchedIn: true,
  },
  webhooks: {
    createEndpoint: true,
    getEndpoint: true,
    listEndpoints: true,
    updateEndpoint: true,
    deleteEndpoint: true,
    rotateEndpointSecret: true,
    dispatchCursor: true,
    enqueueDeliveries: true,
    addDelivery: true,
    claimDeliveries: true,
    releaseDeliveries: true,
    getEndpoints: true,
    recordAttempts: true,
    listDeliveries: true,
    retryDelivery: true,
    deliveryBacklog: true,
  },
  lists: {
    createList: true,
    getList: true,
    listLists: true,
    deleteList: true,
    claimList: true,
    advanceList: true,
    finishList: true,
    releaseList: true,
    pruneLists: true,
  },
  sessions: {
    createSession: true,
    findSession: true,
    touchSession: true,
    deleteSession: true,
    pruneSessions: true,
  },
} satisfies { [Role in keyof StoreRoles]: Record<keyof StoreRoles[Role], true> };

/** A role's methods as its implementation types them (SQLite's lookups answer without a promise). */
type Answered<Role, Implementation> = {
  [Name in keyof Role]: Name extends keyof Implementation ? Implementation[Name] : Role[Name];
};

/** The Store a backend's roles make. */
export type Composed<R extends StoreRoles> = Answered<RecordStore, R['records']> &
  Answered<SearchStore, R['search']> &
  Answered<KeyStore, R['keys']> &
  Answered<AccountingStore, R['accounting']> &
  Answered<SuppressionStore, R['suppression']> &
  Answered<HealthStore, R['health']> &
  Answered<ChangeStore, R['changes']> &
  Answered<WatchlistStore, R['watchlists']> &
  Answered<WebhookStore, R['webhooks']> &
  Answered<ListStore, R['lists']> &
  Answered<SessionStore, R['sessions']>;

/**
 * The Store made of a backend's roles and its own members (`close`, and what only that backend offers).
 * Each method is the role's own, bound to it: a call costs what calling the role object does.
 */
export function composeStore<R extends StoreRoles, Own extends { close(): Promise<void> }>(
  roles: R,
  own: Own,
): Composed<R> & Own {
  const store: Record<string, unknown> = {};
  for (const role of Object.keys(ROLE_METHODS) as Array<keyof StoreRoles>) {
    const implementation = roles[role] as unknown as Record<string, unknown>;
    for (const name of Object.keys(ROLE_METHODS[role])) {
      const method = implementation[name];
      store[name] = typeof method === 'function' ? method.bind(implementation) : undefined;
    }
  }
  return Object.assign(store, own) as Composed<R> & Own;
}
