// A server's list worker polls for jobs every few seconds: while another process holds SQLite's write lock (a
// refresh does, most of the time), a poll that finds no job waiting answers at once, without waiting for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("finds no list job waiting without SQLite's write lock, and claims one waiting with it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-lists-'));
  dirs.push(dir);
  const path = join(dir, 'enrich.db');
  const store = openSqliteStore(path, { busyTimeoutMs: 0 });
  const other = new Database(path);
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
  try {
    other.prepare('BEGIN IMMEDIATE').run();
    expect(await store.claimList('worker_a', at(10), at(70))).toBeUndefined();
    other.prepare('ROLLBACK').run();
    await store.createList({
      id: 'list_1',
      key_id: 'key_1',
      entity: 'people',
      format: 'ndjson',
      options: '{"map":[],"fields":null}',
      mapping: '[]',
      created_at: at(0),
      expires_at: at(1000),
    });
    other.prepare('BEGIN IMMEDIATE').run();
    // A job waits: claiming it is a write, which waits for the lock (here, not at all: busy at once).
    await expect(store.claimList('worker_a', at(10), at(70))).rejects.toThrow(/locked|busy/i);
    other.prepare('ROLLBACK').run();
    expect(await store.claimList('worker_a', at(11), at(71))).toMatchObject({ id: 'list_1' });
  } finally {
    other.close();
    await store.close();
  }
});
