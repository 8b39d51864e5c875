// Which processes hold a SQLite store: named from the kernel's lock table, or known from SQLite's own lock.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeHolders, heldBySomeone, storeHolders } from '../../../src/store/sqlite/holders.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';
import { serve } from '../../cluster/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-holders-'));
const db = join(dir, 'enrich.db');
await openSqliteStore(db).close();

/** A plain Node process with the store open through better-sqlite3, until killed. */
async function holdWithNode(): Promise<ChildProcess> {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)});
    db.prepare('SELECT count(*) FROM people').get(); console.log('open'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  return child;
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    if (child.exitCode === null) await once(child, 'exit');
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('store holders', () => {
  it('are none when no process has the store open', () => {
    expect(storeHolders(db)).toEqual([]);
    expect(heldBySomeone(db)).toBe(false);
    expect(storeHolders(join(dir, 'missing.db'))).toEqual([]);
  });

  it('name a server by its primary, not its workers', async () => {
    const server = await serve(['--db', db, '--workers', '2']);
    try {
      expect(storeHolders(db)).toEqual([{ pid: server.child.pid, role: 'a server' }]);
    } finally {
      await server.stop();
    }
  });

  it('name another program by its executable', async () => {
    const child = await holdWithNode();
    children.push(child);
    expect(storeHolders(db)).toEqual([{ pid: child.pid, role: 'a process (node)' }]);
  });

  it('are known from SQLite’s own lock where the system cannot say who they are', async () => {
    children.push(await holdWithNode());
    expect(heldBySomeone(db)).toBe(true);
  });

  it('read as one sentence', () => {
    expect(describeHolders([{ pid: 7, role: 'a server' }], 'e.db')).toBe('a server (pid 7) is using e.db');
    expect(
      describeHolders(
        [
          { pid: 7, role: 'a server' },
          { pid: 9, role: 'enrich import' },
          { pid: 0, role: 'another process' },
        ],
        'e.db',
      ),
    ).toBe('a server (pid 7), enrich import (pid 9) and another process are using e.db');
  });
});
