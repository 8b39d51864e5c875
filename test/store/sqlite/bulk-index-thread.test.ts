// A bulk load's part of the serving index is built on a thread of its own while SQLite's indexes are built:
// the records first, the identifiers once SQLite's identifier table is committed. When the thread cannot
// build it, or SQLite's build fails, the load still ends with the index right (or refuses, losing nothing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { ServingIndex } from '../../../src/store/serving/serving-index.js';
import { SqliteBulk } from '../../../src/store/sqlite/bulk.js';
import * as indexBuild from '../../../src/store/sqlite/index-build.js';
import { SqliteSearchWrites } from '../../../src/store/sqlite/search-writes.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const { startEarly } = await vi.importActual<typeof indexBuild>('../../../src/store/sqlite/index-build.js');

vi.mock('../../../src/store/sqlite/index-build.js', async (original) => {
  const actual = await original<typeof indexBuild>();
  return { ...actual, startEarly: vi.fn(actual.startEarly) };
});

/** The build threads the load starts, as `startEarly` gives them their builds. */
function watchThreads(): indexBuild.IndexBuildThread[] {
  const threads: indexBuild.IndexBuildThread[] = [];
  vi.mocked(indexBuild.startEarly).mockImplementationOnce((paths) => {
    const early = startEarly(paths);
    return {
      build: (...args) => {
        const thread = early.build(...args);
        threads.push(thread);
        return thread;
      },
    };
  });
  return threads;
}

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-bulk-thread-'));
  dirs.push(dir);
  return join(dir, 'enrich.db');
};
afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(indexBuild.startEarly).mockClear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const people = Array.from({ length: 1_200 }, (_, n) => ({
  id: `p${String(n).padStart(5, '0')}`,
  name: `Jo Doe${n}`,
  emails: { work: [{ value: `p${n}@acme.com.au` }] },
}));
const prepared = (record: object) => prepareLine('people', JSON.stringify(record)) as RecordToStore;

/** Bulk-loads `people` into a new store; the store, open, and the index's builds on this thread during the load. */
async function loaded(path: string) {
  const store = openSqliteStore(path);
  const onMain = vi.spyOn(ServingIndex.prototype, 'build');
  const bulk = await store.beginBulkLoad!('people');
  expect(bulk).toBeDefined();
  // Its thread is started as the load begins, and loads its modules while the records are written.
  expect(indexBuild.startEarly).toHaveBeenCalledTimes(1);
  await bulk!.upsert(people.map(prepared));
  await bulk!.finish();
  return { store, onMain };
}

/** True when every person is served from the index, by id and by work e-mail. */
function servedFromIndex(store: ReturnType<typeof openSqliteStore>): boolean {
  const fromIndex = vi.spyOn(ServingIndex.prototype, 'findRecords');
  try {
    return people.every((person, n) => {
      const byId = store.findRecords('people', 'id', person.id, 11);
      const byEmail = store.findRecords('people', 'work_email', `p${n}@acme.com.au`, 11);
      return (
        byId[0]?.id === person.id &&
        byEmail[0]?.id === person.id &&
        fromIndex.mock.results.every((result) => result.value !== undefined)
      );
    });
  } finally {
    fromIndex.mockRestore();
  }
}

describe("a bulk load's serving index", () => {
  it('is built on a thread of its own, in service at the store’s generation when the load ends', async () => {
    // SQLite's indexes are slow to start: the thread has copied the records and must wait for the identifiers.
    const finish = SqliteBulk.prototype.finish;
    vi.spyOn(SqliteBulk.prototype, 'finish').mockImplementation(function (this: SqliteBulk, ...args) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
      return finish.apply(this, args);
    });
    const threads = watchThreads();
    const { store, onMain } = await loaded(tempDb());
    try {
      expect(threads).toHaveLength(1);
      expect(onMain).not.toHaveBeenCalled();
      expect(servedFromIndex(store)).toBe(true);
      // In line with SQLite: a check (as a server runs every second) finds nothing to do.
      expect(store.reconcileIndex()).toBe('current');
    } finally {
      await store.close();
    }
  });

  it('is built by the loading thread when the build thread fails', async () => {
    vi.mocked(indexBuild.startEarly).mockImplementationOnce(() => ({
      build: () => ({
        done: Promise.resolve({ built: [], failure: 'the thread could not start' }),
        stop: () => {},
        stopped: () => false,
      }),
    }));
    const { store, onMain } = await loaded(tempDb());
    try {
      expect(onMain).toHaveBeenCalledTimes(1);
      expect(servedFromIndex(store)).toBe(true);
      expect(store.reconcileIndex()).toBe('current');
    } finally {
      await store.close();
    }
  });

  it('stops its thread when SQLite’s indexes cannot be built, and keeps every record', async () => {
    const path = tempDb();
    vi.spyOn(SqliteSearchWrites.prototype, 'finishBulk').mockImplementationOnce(() => {
      throw new Error('disk full');
    });
    const threads = watchThreads();
    const store = openSqliteStore(path);
    try {
      const bulk = await store.beginBulkLoad!('people');
      await bulk!.upsert(people.map(prepared));
      await expect(bulk!.finish()).rejects.toThrow('disk full');
      // The thread has ended (finish waited for it): nothing is left waiting for identifiers.
      expect(threads).toHaveLength(1);
      expect(threads[0]!.stopped()).toBe(true);
      // Its records and identifiers are committed, read from SQLite until the load is finished again (by
      // the next process to open the store, once this one is gone).
      for (const [n, person] of people.entries()) {
        expect(store.findRecords('people', 'work_email', `p${n}@acme.com.au`, 11)[0]?.id).toBe(person.id);
      }
    } finally {
      await store.close();
    }
  });
});
