// The list worker's pruning: a job whose 7 days are over goes, with its files and the mark of its charges.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MemoryQuotaCounter } from '../../src/limits/quota.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { ListFiles } from '../../src/lists/files.js';
import { chargeSegment } from '../../src/lists/run.js';
import { ListWorker } from '../../src/lists/worker.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-list-worker-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('prunes the jobs whose time is over, their files and the mark of their charges, and keeps the others', async () => {
  const store = openSqliteStore(':memory:');
  const files = new ListFiles(dir);
  const job = (id: string, expires: number) => ({
    id,
    key_id: 'key_1',
    entity: 'people' as const,
    format: 'csv' as const,
    options: '{"map":[],"fields":null}',
    mapping: '[]',
    created_at: new Date(Date.now() - 10 * 86_400_000).toISOString(),
    expires_at: new Date(Date.now() + expires).toISOString(),
  });
  for (const [id, expires] of [
    ['ls_old', -1000],
    ['ls_new', 86_400_000],
  ] as const) {
    await store.createList(job(id, expires));
    writeFileSync(files.upload(id), 'Email\n');
    writeFileSync(files.result(id), 'Email,enrich_status\n');
  }
  // The old job had charged rows: its segment's offset is forgotten with it.
  await store.foldJournal(chargeSegment('ls_old'), 0, 1, { audit: [], usage: [], quota: new Map() });
  const worker = new ListWorker({
    store,
    files,
    limiter: new MemoryRateLimiter(),
    quota: new MemoryQuotaCounter(store),
    onError: (error) => {
      throw error;
    },
  });
  worker.start();
  try {
    // Pruned in steps (files, the job, the mark of its charges): waited for until the last is done.
    const pruned = async () =>
      !existsSync(files.upload('ls_old')) && (await store.journalOffset(chargeSegment('ls_old'))) < 0;
    for (let i = 0; i < 100 && !(await pruned()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(files.upload('ls_old'))).toBe(false);
    expect(existsSync(files.result('ls_old'))).toBe(false);
    expect(await store.getList('key_1', 'ls_old')).toBeUndefined();
    expect(await store.journalOffset(chargeSegment('ls_old'))).toBeLessThan(0);
    expect(existsSync(files.result('ls_new'))).toBe(true);
    expect(await store.getList('key_1', 'ls_new')).toBeDefined();
  } finally {
    await worker.close();
    await store.close();
  }
});
