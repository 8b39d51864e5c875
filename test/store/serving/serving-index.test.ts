// The serving index follows the store of record through crashes and restores: a writer killed between
// its SQLite commit and the index update is repaired, and an index that no longer matches is rebuilt.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { openSqliteStore, servingIndexPath } from '../../../src/store/sqlite/store.js';

const DYING_WRITER = fileURLToPath(new URL('./dying-writer.ts', import.meta.url));
const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-index-'));
  dirs.push(dir);
  return join(dir, 'enrich.db');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const person = (id: string, email: string) => ({ id, name: id, emails: { work: [{ value: email }] } });
const prepared = (record: object) => prepareLine('people', JSON.stringify(record)) as RecordToStore;
const bodyOf = (records: Array<{ body: Buffer | string }>) => records.map((r) => String(r.body));

describe('the serving index', () => {
  it('is repaired from SQLite after a writer dies between its commit and the index update', async () => {
    const path = tempDb();
    const server = openSqliteStore(path);
    await server.upsert('people', [prepared(person('p1', 'old@acme.com.au'))]);
    const changed = person('p1', 'new@acme.com.au');
    const child = spawnSync(process.execPath, [
      '--import',
      'tsx',
      DYING_WRITER,
      path,
      JSON.stringify(changed),
    ]);
    expect(child.signal).toBe('SIGKILL');
    // SQLite has the new version; the index, not yet: what a server serves until its check runs.
    expect(await server.getRecord('people', 'p1')).toMatchObject({ body: JSON.stringify(changed) });
    expect(bodyOf(server.findRecords('people', 'work_email', 'old@acme.com.au', 11))).toHaveLength(1);
    // A server checks once a second; the check finds the dead writer's intent and repairs what it named.
    expect(server.reconcileIndex()).toBe('repaired');
    expect(server.findRecords('people', 'work_email', 'old@acme.com.au', 11)).toEqual([]);
    expect(bodyOf(server.findRecords('people', 'work_email', 'new@acme.com.au', 11))).toEqual([
      JSON.stringify(changed),
    ]);
    await server.close();
  });

  it('is repaired by the next process to open the store', async () => {
    const path = tempDb();
    await openSqliteStore(path).close();
    const added = person('p2', 'p2@acme.com.au');
    spawnSync(process.execPath, ['--import', 'tsx', DYING_WRITER, path, JSON.stringify(added)]);
    const store = openSqliteStore(path);
    expect(bodyOf(store.findRecords('people', 'id', 'p2', 11))).toEqual([JSON.stringify(added)]);
    expect(bodyOf(store.findRecords('people', 'work_email', 'p2@acme.com.au', 11))).toHaveLength(1);
    await store.close();
  });

  it('is rebuilt when the SQLite file is restored from an older copy', async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    await store.upsert('people', [prepared(person('kept', 'kept@acme.com.au'))]);
    await store.close();
    copyFileSync(path, `${path}.backup`);
    const later = openSqliteStore(path);
    await later.upsert('people', [prepared(person('later', 'later@acme.com.au'))]);
    await later.close();
    copyFileSync(`${path}.backup`, path);
    const restored = openSqliteStore(path);
    expect(restored.findRecords('people', 'id', 'later', 11)).toEqual([]);
    expect(restored.findRecords('people', 'work_email', 'later@acme.com.au', 11)).toEqual([]);
    expect(bodyOf(restored.findRecords('people', 'id', 'kept', 11))).toHaveLength(1);
    await restored.close();
  });

  it('is rebuilt when deleted, and serves what SQLite holds', async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    await store.upsert('people', [prepared(person('p3', 'p3@acme.com.au'))]);
    await store.close();
    rmSync(servingIndexPath(path));
    const reopened = openSqliteStore(path);
    expect(bodyOf(reopened.findRecords('people', 'work_email', 'p3@acme.com.au', 11))).toHaveLength(1);
    await reopened.close();
  });
});
