// The stores each role's contract runs against: SQLite as the CLI opens it, in memory (no serving index) and as
// a server opens it (a snapshot per turn), and PostgreSQL on a throwaway database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

export interface ContractBackend {
  name: string;
  /** Registers what the backend needs for the whole suite (a database). */
  prepare?(): void;
  /** A fresh, empty store. */
  open(): Promise<Store>;
  /** After each test, once the store is closed. */
  cleanup?(): Promise<void>;
  /** Another store on the data of the last `open` (a second server on one database), where there can be one. */
  openAnother?(): Promise<Store>;
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-store-'));
  dirs.push(dir);
  return dir;
};
const tempDb = () => join(tempDir(), 'enrich.db');
const removeTempDirs = async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
};

let database: TestDatabase | undefined;
let localDatabase: TestDatabase | undefined;

export const BACKENDS: readonly ContractBackend[] = [
  { name: 'sqlite', open: async () => openSqliteStore(tempDb()), cleanup: removeTempDirs },
  {
    name: 'sqlite in memory, lookups by SQL (no serving index)',
    open: async () => openSqliteStore(':memory:'),
  },
  {
    name: 'sqlite as a server opens it (a snapshot per turn)',
    open: async () => openSqliteStore(tempDb(), { turnSnapshots: true }),
    cleanup: removeTempDirs,
  },
  {
    name: 'postgres',
    prepare: () => {
      beforeAll(async () => {
        database = await createTestDatabase();
      });
      afterAll(() => database?.drop());
    },
    open: async () => {
      await database!.truncate();
      return openPostgresStore({ url: database!.url, poolSize: 4 });
    },
    openAnother: async () => openPostgresStore({ url: database!.url, poolSize: 4 }),
  },
  {
    name: 'postgres with its local index',
    prepare: () => {
      beforeAll(async () => {
        localDatabase = await createTestDatabase();
      });
      afterAll(() => localDatabase?.drop());
    },
    open: async () => {
      await localDatabase!.truncate();
      return serving(await openPostgresStore({ url: localDatabase!.url, poolSize: 4, localDir: tempDir() }));
    },
    cleanup: removeTempDirs,
    openAnother: async () =>
      serving(await openPostgresStore({ url: localDatabase!.url, poolSize: 4, localDir: tempDir() })),
  },
];

/** The store once its local index is built and in service, so that lookups read it. */
async function serving(store: Store): Promise<Store> {
  store.logLocalTo?.({ info: () => {}, warn: () => {} });
  for (const deadline = Date.now() + 10_000; !store.localStatus?.()?.serving; ) {
    if (Date.now() > deadline) throw new Error('the local index was not in service within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return store;
}

/** Runs a contract suite against one backend: each test on a fresh, empty store, closed after it. */
export function describeContract(
  title: string,
  backend: Omit<ContractBackend, 'name'>,
  suite: (store: () => Store) => void,
) {
  describe(title, () => {
    backend.prepare?.();
    let store: Store;
    beforeEach(async () => {
      store = await backend.open();
    });
    afterEach(async () => {
      await store.close();
      await backend.cleanup?.();
    });
    suite(() => store);
  });
}

/** Runs a role's contract suite against every backend. */
export function describeOnEveryBackend(role: string, suite: (store: () => Store) => void) {
  for (const backend of BACKENDS) describeContract(`${backend.name} ${role} contract`, backend, suite);
}
