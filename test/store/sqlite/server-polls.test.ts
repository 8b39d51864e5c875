// What a server writes on its own schedule, on the thread that answers lookups, does not wait for SQLite's
// write lock while another process holds it (a refresh does, most of the time): the list worker's poll that
// finds no job waiting, and the flush of each minute's counts, which fails busy at once and is tried again.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';
import { isBusy } from '../../../src/store/unavailable.js';
import { minute } from '../contract/accounting.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-polls-'));
  dirs.push(dir);
  return join(dir, 'enrich.db');
};

it("finds no list job waiting without SQLite's write lock, and claims one waiting with it", async () => {
  const path = tempDb();
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

/** Holds SQLite's write lock on `path` from another process for `ms`; resolves once it holds it, with its exit. */
async function lockedElsewhere(path: string, ms: number) {
  const code = `const db = new (require('better-sqlite3'))(${JSON.stringify(path)});
    db.exec('BEGIN IMMEDIATE'); console.log('held');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  return { released: once(child, 'exit') };
}

it("turns a minute's counts away at once while another process writes, and waits when asked to", async () => {
  const path = tempDb();
  const store = openSqliteStore(path);
  const row = minute('key_1', '2026-01-01T00:00', { requests: 1, matched: 1 });
  try {
    // The lock is let go after 1.5 s, within the store's own busy timeout (5 s): a write that waited would
    // succeed; one that does not wait fails busy.
    const { released } = await lockedElsewhere(path, 1500);
    const turnedAway = await store.addMinutes([row], { wait: false }).catch((error: unknown) => error);
    expect(isBusy(turnedAway)).toBe(true);
    await store.addMinutes([row]);
    await released;
    expect(await store.minutes({ since: '2026-01-01T00:00' })).toMatchObject([{ requests: 1 }]);
  } finally {
    await store.close();
  }
});
