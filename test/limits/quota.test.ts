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
    counter = new MemoryQuotaCounter(store, () => now);
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
    // A counter that knows the count answers at once: a refusal is thrown, not a rejected promise.
    expect(() => counter.reserve(key)).toThrow(
      expect.objectContaining({ code: 'quota_exceeded', status: 402 }),
    );
  });

  it('holds in-flight reservations against the quota', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 1 });
    const first = await counter.reserve(key);
    expect(() => counter.reserve(key)).toThrow(ProblemError);
    first!.settle(false);
    expect(await counter.reserve(key)).not.toBeNull();
  });

  it("reads a month's count from the store, counts on from it, and starts afresh next month", async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    await store.addQuotaUse('2026-11', new Map([[key.id, 2]]));
    const restarted = new MemoryQuotaCounter(store, () => now);
    expect((await restarted.reserve(key))!.settle(true)).toBe(2);
    // Counts reach the store through the accounting journal, never from the counter itself.
    expect(await store.quotaUsed(key.id, '2026-11')).toBe(2);
    now = new Date('2026-12-01T00:00:01Z');
    expect((await restarted.reserve(key))!.settle(false)).toBe(5);
    await restarted.close();
  });

  it('grants a bulk as many items as the quota has left, and counts only those that matched', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    const single = (await counter.reserve(key))!;
    const grant = (await counter.reserveItems(key, 8))!;
    expect(grant.granted).toBe(4); // one is held by the lookup in flight
    single.settle(true);
    expect(grant.settle(3)).toBe(1);
    expect(grant.settle(3)).toBe(1); // settled once only
    const rest = (await counter.reserveItems(key, 8))!;
    expect(rest.granted).toBe(1);
    expect(rest.settle(1)).toBe(0);
    expect((await counter.reserveItems(key, 8))!.granted).toBe(0);
    expect(() => counter.reserve(key)).toThrow(expect.objectContaining({ code: 'quota_exceeded' }));
  });

  it('does not grant items to a key without a quota: it has no limit', async () => {
    const { key } = await issueKey(store, { name: 'free' });
    expect(await counter.reserveItems(key, 1000)).toBeNull();
  });
});
