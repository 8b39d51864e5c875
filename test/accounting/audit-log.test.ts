import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/accounting/audit-log.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { AuditEntry, Store } from '../../src/store/store.js';

const entry = (n: number, at = new Date().toISOString()): AuditEntry => ({
  at,
  key_id: 'k1',
  operation: 'people',
  params: ['id'],
  matched: [`fp${String(n).padStart(12, '0')}`],
  status: 200,
});

describe('the audit log writer', () => {
  let store: Store;
  let writes: number[];

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    writes = [];
    const addAudit = store.addAudit.bind(store);
    store.addAudit = async (entries) => {
      writes.push(entries.length);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return addAudit(entries);
    };
  });
  afterEach(() => store.close());

  it('buffers entries and writes them in batches, never one by one', async () => {
    const log = new AuditLog(store, { flushEveryMs: 60_000, batchSize: 100 });
    for (let n = 0; n < 250; n++) expect(log.record(entry(n))).toBeUndefined();
    await log.close();
    expect(writes.every((size) => size <= 100)).toBe(true);
    expect(writes.length).toBeLessThanOrEqual(4);
    expect(await store.audit({})).toHaveLength(250);
  });

  it('makes the request that fills the buffer wait for a write, and loses nothing', async () => {
    const log = new AuditLog(store, { flushEveryMs: 60_000, batchSize: 10, capacity: 50 });
    const waits = await Promise.all(
      Array.from({ length: 500 }, async (_, n) => {
        const wait = log.record(entry(n));
        if (wait) await wait;
        return wait !== undefined;
      }),
    );
    expect(waits.some(Boolean)).toBe(true);
    await log.close();
    const stored = await store.audit({});
    expect(stored).toHaveLength(500);
    expect(new Set(stored.map((e) => e.matched[0])).size).toBe(500);
  });

  it('keeps entries a write could not store, and writes them once the store is back', async () => {
    const errors: unknown[] = [];
    const log = new AuditLog(store, { flushEveryMs: 60_000, onError: (e) => errors.push(e) });
    const addAudit = store.addAudit;
    store.addAudit = async () => {
      throw new Error('down');
    };
    log.record(entry(1));
    await expect(log.flush()).rejects.toThrow('down');
    store.addAudit = addAudit;
    log.record(entry(2));
    await log.close();
    expect((await store.audit({})).map((e) => e.matched[0])).toEqual(['fp000000000001', 'fp000000000002']);
  });

  it('writes on its own every flush interval', async () => {
    const log = new AuditLog(store, { flushEveryMs: 10 });
    log.record(entry(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.audit({})).toHaveLength(1);
    await log.close();
  });

  it('prunes entries older than the retention period when it starts', async () => {
    const now = new Date('2026-06-01T00:00:00.000Z');
    await store.addAudit([entry(1, '2025-05-31T23:59:59.000Z'), entry(2, '2025-06-02T00:00:00.000Z')]);
    const log = new AuditLog(store, { retentionDays: 365, now: () => now });
    await log.close();
    expect((await store.audit({})).map((e) => e.matched[0])).toEqual(['fp000000000002']);
  });
});
