import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/auth/keys.js';
import { ProblemError } from '../../src/errors.js';
import { MemoryQuotaCounter, quotaPeriod } from '../../src/limits/quota.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

describe('monthly quota', () => {
  let store: Store;
  let now: Date;
  let counter: MemoryQuotaCounter;

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    now = new Date('2026-11-22T10:00:00Z');
    counter = new MemoryQuotaCounter(store, 60_000, () => now);
  });
  afterEach(async () => {
    await counter.close();
    await store.close();
  });

  it('is the calendar month in UTC', () => {
    expect(quotaPeriod(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(quotaPeriod(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
  });

  it('does not apply to a key without one', async () => {
    const { key } = await issueKey(store, { name: 'free' });
    expect(await counter.reserve(key)).toBeNull();
  });

  it('counts only matched lookups and refuses once used up', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 2 });
    expect((await counter.reserve(key))!.settle(false)).toBe(2);
    expect((await counter.reserve(key))!.settle(true)).toBe(1);
    expect((await counter.reserve(key))!.settle(true)).toBe(0);
    await expect(counter.reserve(key)).rejects.toMatchObject({ code: 'quota_exceeded', status: 402 });
  });

  it('holds in-flight reservations against the quota', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 1 });
    const first = await counter.reserve(key);
    await expect(counter.reserve(key)).rejects.toBeInstanceOf(ProblemError);
    first!.settle(false);
    expect(await counter.reserve(key)).not.toBeNull();
  });

  it('persists counts to the store and starts afresh next month', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    (await counter.reserve(key))!.settle(true);
    (await counter.reserve(key))!.settle(true);
    await counter.flush();
    expect(await store.quotaUsed(key.id, '2026-11')).toBe(2);

    const restarted = new MemoryQuotaCounter(store, 60_000, () => now);
    expect((await restarted.reserve(key))!.settle(false)).toBe(3);
    now = new Date('2026-12-01T00:00:01Z');
    expect((await restarted.reserve(key))!.settle(false)).toBe(5);
    await restarted.close();
  });
});
