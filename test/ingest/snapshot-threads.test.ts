// A refresh whose first file parses in threads starts them before it reads the store: the refresh is the same,
// and the threads end whether it imports, is refused by its guard, or is a dry run (which starts none).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { importFile } from '../../src/ingest/import.js';
import { refreshSnapshot, SnapshotRefusedError } from '../../src/ingest/snapshot.js';
import * as workerBatches from '../../src/ingest/worker-batches.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { personLine } from './fixtures.js';

vi.mock('../../src/ingest/worker-batches.js', async (original) => {
  const actual = await original<typeof workerBatches>();
  return { ...actual, startParseThreads: vi.fn(actual.startParseThreads) };
});
const { ParseThreads, startParseThreads } = workerBatches;

let dir: string;
let store: SqliteStore;
const file = (name: string, numbers: number[]) => {
  const path = join(dir, name);
  writeFileSync(path, numbers.map((n) => `${personLine(n)}\n`).join(''));
  return path;
};
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'enrich-snapshot-threads-'));
  store = openSqliteStore(join(dir, 'enrich.db'));
  await importFile(store, 'people', file('first.ndjson', range(0, 50)), { worker: false });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(startParseThreads).mockClear();
});

describe('a refresh whose file parses in threads', () => {
  it('starts them before reading the store, refreshes as on one thread, and ends them', async () => {
    const ended = vi.spyOn(ParseThreads.prototype, 'terminate');
    const storeRead = vi.spyOn(store, 'exportIds');
    // Five left out of fifty (10%, the default limit), three new.
    const summary = await refreshSnapshot(store, 'people', [file('next.ndjson', range(5, 53))], {
      worker: true,
    });
    expect(summary).toMatchObject({ inserted: 3, unchanged: 45, removed: 5, read: 48, rejected: 0 });
    expect(await store.count('people')).toBe(48);
    expect(startParseThreads).toHaveBeenCalledTimes(1);
    expect(vi.mocked(startParseThreads).mock.invocationCallOrder[0]).toBeLessThan(
      storeRead.mock.invocationCallOrder[0]!,
    );
    expect(ended).toHaveBeenCalled();
  });

  it('ends them when the guard refuses, having changed nothing', async () => {
    const ended = vi.spyOn(ParseThreads.prototype, 'terminate');
    await expect(
      refreshSnapshot(store, 'people', [file('half.ndjson', range(5, 25))], { worker: true }),
    ).rejects.toBeInstanceOf(SnapshotRefusedError);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await store.count('people')).toBe(48);
  });

  it('starts none for a dry run', async () => {
    const ended = vi.spyOn(ParseThreads.prototype, 'terminate');
    const summary = await refreshSnapshot(store, 'people', [file('dry.ndjson', range(0, 50))], {
      worker: true,
      dryRun: true,
    });
    expect(summary).toMatchObject({ dryRun: true, inserted: 5, removed: 3 });
    expect(startParseThreads).not.toHaveBeenCalled();
    expect(ended).not.toHaveBeenCalled();
  });
});
