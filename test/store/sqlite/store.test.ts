// What only the SQLite store does (each role's contract runs on it from test/store/<role>.test.ts): a file,
// migrations from every earlier version, read-only connections, several processes at once, the key cache.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../../src/auth/keys.js';
import { hashToken, mintToken } from '../../../src/auth/tokens.js';
import { SCHEMA_VERSION } from '../../../src/store/sqlite/schema.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const WRITER_CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));
const dirs: string[] = [];
const tempPath = (...parts: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-sqlite-'));
  dirs.push(dir);
  return join(dir, ...parts);
};
const removeTempDirs = async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
};

describe('sqlite store', () => {
  afterEach(removeTempDirs);

  const record = { id: 'fp000000000001', body: '{"id":"fp000000000001"}', etag: '"e"' };

  it('creates missing parent directories and keeps records across reopening', async () => {
    const path = tempPath('nested', 'deeper', 'enrich.db');
    const store = openSqliteStore(path);
    await store.upsert('people', [{ ...record, identifiers: [{ kind: 'linkedin', value: 'jane' }] }]);
    await store.close();

    const reopened = openSqliteStore(path);
    expect(await reopened.findIds('people', 'linkedin', 'jane', 1)).toEqual([record.id]);
    await reopened.close();
  });

  it('uses WAL, no mmap and records its schema version', async () => {
    const path = tempPath('enrich.db');
    const store = openSqliteStore(path);
    await store.close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('creates new databases with 16 KiB pages', async () => {
    const path = tempPath('enrich.db');
    await openSqliteStore(path).close();
    const db = new Database(path);
    expect(db.pragma('page_size', { simple: true })).toBe(16384);
    db.close();
  });

  it('opens read-only: serves reads and refuses writes', async () => {
    const path = tempPath('enrich.db');
    const writer = openSqliteStore(path);
    await writer.upsert('people', [{ ...record, identifiers: [] }]);
    const reader = openSqliteStore(path, { readonly: true });
    expect(await reader.getRecord('people', record.id)).toEqual(record);
    await expect(reader.upsert('people', [{ ...record, identifiers: [] }])).rejects.toThrow(/readonly/i);
    await reader.close();
    await writer.close();
  });

  it('refuses to open a missing database read-only', () => {
    expect(() => openSqliteStore(tempPath('missing.db'), { readonly: true })).toThrow();
  });

  it('refuses a database from a newer schema', () => {
    const path = tempPath('enrich.db');
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/newer/);
  });

  it('changes its data version when another connection writes', async () => {
    const path = tempPath('enrich.db');
    const reader = openSqliteStore(path);
    const writer = openSqliteStore(path);
    const before = reader.dataVersion();
    expect(reader.dataVersion()).toBe(before);
    await writer.upsert('people', [{ ...record, identifiers: [] }]);
    expect(reader.dataVersion()).not.toBe(before);
    await writer.close();
    await reader.close();
  });

  it('imports while another process writes to the same database', async () => {
    const path = tempPath('enrich.db');
    const store = openSqliteStore(path);
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER_CHILD, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await once(child.stdout, 'data');
      for (let b = 0; b < 100; b++) {
        const batch = Array.from({ length: 20 }, (_, i) => ({
          ...record,
          id: `p${b}-${i}`,
          identifiers: [{ kind: 'linkedin' as const, value: `p${b}-${i}` }],
        }));
        await store.upsert('people', batch);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect(await store.count('people')).toBe(2000);
      expect(await store.quotaUsed('key', '2025-01')).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
      await store.close();
    }
  });

  it('rejects an identifier kind it does not know', async () => {
    const store = openSqliteStore(tempPath('enrich.db'));
    const bad = { ...record, identifiers: [{ kind: 'phone', value: '1' }] } as never;
    await expect(store.upsert('people', [bad])).rejects.toThrow(/kind/);
    expect(await store.count('people')).toBe(0);
    await store.close();
  });
});

describe('sqlite key cache', () => {
  afterEach(removeTempDirs);

  it('sees a revocation or rotation made through another connection on the very next lookup', async () => {
    const path = tempPath('keys.db');
    const server = openSqliteStore(path);
    const cli = openSqliteStore(path);
    const { key } = await issueKey(cli, { name: 'cached' });
    expect((await server.findKeyByHash(key.hash))?.revoked_at).toBeNull();
    expect((await server.findKeyByHash(key.hash))?.revoked_at).toBeNull();
    await cli.revokeKey(key.id, new Date());
    expect((await server.findKeyByHash(key.hash))?.revoked_at).not.toBeNull();
    await server.close();
    await cli.close();
  });

  it("sees a key's new settings, updated through another connection, on the very next lookup", async () => {
    const path = tempPath('keys.db');
    const server = openSqliteStore(path);
    const cli = openSqliteStore(path);
    const { key } = await issueKey(cli, { name: 'cached', rate: 50, scopes: ['people:read'] });
    expect((await server.findKeyByHash(key.hash))?.rate).toBe(50);
    await cli.updateKey(key.id, { rate: 2, scopes: ['company:read'] });
    expect(await server.findKeyByHash(key.hash)).toMatchObject({ rate: 2, scopes: ['company:read'] });
    await server.close();
    await cli.close();
  });

  it('sees a key created after a miss for its hash was cached', async () => {
    const path = tempPath('keys.db');
    const server = openSqliteStore(path);
    const cli = openSqliteStore(path);
    const token = mintToken();
    expect(await server.findKeyByHash(hashToken(token))).toBeUndefined();
    await cli.createKey({
      ...(await issueKey(cli, { name: 'other' })).key,
      id: 'key_later',
      hash: hashToken(token),
    });
    expect((await server.findKeyByHash(hashToken(token)))?.id).toBe('key_later');
    await server.close();
    await cli.close();
  });

  it('with a snapshot per turn (no serving index), sees a revocation from the next turn and lets its own writes through', async () => {
    const path = tempPath('keys.db');
    const server = openSqliteStore(path, { turnSnapshots: true, servingIndex: false });
    const cli = openSqliteStore(path);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const { key } = await issueKey(cli, { name: 'cached' });
    expect((await server.findKeyByHash(key.hash))?.revoked_at).toBeNull();
    await cli.revokeKey(key.id, new Date());
    // The same turn reads the same snapshot: the revocation is concurrent with it.
    expect((await server.findKeyByHash(key.hash))?.revoked_at).toBeNull();
    await nextTurn();
    expect((await server.findKeyByHash(key.hash))?.revoked_at).not.toBeNull();

    // A write on the snapshot's own connection ends the snapshot first, and is committed at once.
    const { key: second } = await issueKey(server, { name: 'second' });
    expect((await server.findKeyByHash(second.hash))?.id).toBe(second.id);
    expect((await cli.findKeyByHash(second.hash))?.id).toBe(second.id);
    await server.upsert('people', [{ id: 'fp1', body: '{"id":"fp1"}', etag: '"e"', identifiers: [] }]);
    expect(await cli.count('people')).toBe(1);
    await server.close();
    await cli.close();
  });
});
