import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/auth/keys.js';
import { quotaPeriod } from '../../src/limits/quota.js';
import { periodExpiry, RedisQuotaCounter, type RedisQuotaOptions } from '../../src/limits/redis/quota.js';
import type { ApiKey } from '../../src/store/keys.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { connected, DEAD_REDIS_URL, dropPrefix, policy, testPrefix } from '../cluster/redis.js';

const prefix = testPrefix();

// The counters' clock runs in this month: Redis expires a period's count two days after the period ends by
// its own clock, so a period of a fixed month would already be gone once that month is over.
const today = new Date();
const month = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + offset, 1));
const PERIOD = quotaPeriod(month(0));
const NEXT_PERIOD = quotaPeriod(month(1));

/** A reservation as a promise: a counter answers at once (and throws a 402 at once) from a lease it holds. */
const reserving = (counter: RedisQuotaCounter, key: ApiKey) =>
  Promise.resolve().then(() => counter.reserve(key));

describe('monthly quotas in Redis', () => {
  let store: Store;
  let now: Date;
  const counters: RedisQuotaCounter[] = [];

  async function counter(options: RedisQuotaOptions & { mode?: 'open' | 'closed'; url?: string } = {}) {
    const made = policy(options.mode ?? 'open');
    const client = await connected(options.url);
    const created = new RedisQuotaCounter(client, prefix, made.failure, store, {
      now: () => now,
      ...options,
    });
    counters.push(created);
    return { counter: created, client, ...made };
  }

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    now = new Date(month(0).getTime() + 14 * 86_400_000 + 10 * 3_600_000); // the 15th, 10:00
  });
  afterEach(async () => {
    await Promise.all(counters.splice(0).map((c) => c.close()));
    await store.close();
  });
  afterAll(() => dropPrefix(prefix));

  it('do not apply to a key without one', async () => {
    const { key } = await issueKey(store, { name: 'free' });
    expect(await (await counter()).counter.reserve(key)).toBeNull();
  });

  it('count only matched lookups and refuse once used up', async () => {
    const { counter: quota } = await counter();
    const { key } = await issueKey(store, { name: 'metered', quota: 2 });
    expect((await quota.reserve(key))!.settle(false)).toBe(2);
    expect((await quota.reserve(key))!.settle(true)).toBe(1);
    expect((await quota.reserve(key))!.settle(true)).toBe(0);
    await expect(reserving(quota, key)).rejects.toMatchObject({
      code: 'quota_exceeded',
      status: 402,
      headers: { 'enrich-quota-remaining': '0' },
    });
  });

  it('hold in-flight reservations against the quota across processes', async () => {
    const a = (await counter()).counter;
    const b = (await counter()).counter;
    const { key } = await issueKey(store, { name: 'metered', quota: 3 });
    const reservations = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).reserve(key)),
    );
    const held = reservations.filter((r) => r.status === 'fulfilled');
    expect(held).toHaveLength(3);
    for (const r of held) (r as PromiseFulfilledResult<{ settle(m: boolean): number }>).value.settle(false);
    await Promise.all([a.close(), b.close()]); // settlements travel in the background; closing awaits them
    const c = (await counter()).counter;
    expect(await c.reserve(key)).not.toBeNull();
  });

  it('start a period from the count in the store, which the accounting journal keeps (not the counter)', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    await store.addQuotaUse(PERIOD, new Map([[key.id, 3]]));
    const { counter: quota } = await counter();
    expect((await quota.reserve(key))!.settle(true)).toBe(1);
    await quota.close();
    expect(await store.quotaUsed(key.id, PERIOD)).toBe(3);
  });

  it('start afresh next month and expire a month two days after it ends', async () => {
    const { counter: quota, client } = await counter();
    const { key } = await issueKey(store, { name: 'metered', quota: 1 });
    (await quota.reserve(key))!.settle(true);
    await expect(reserving(quota, key)).rejects.toMatchObject({ code: 'quota_exceeded' });
    now = new Date(month(1).getTime() + 1000);
    expect((await quota.reserve(key))!.settle(false)).toBe(1);
    const expiresAt = await client.expiretime(`${prefix}quota:{${key.id}:${PERIOD}}:used`);
    expect(expiresAt).toBe(month(1).getTime() / 1000 + 2 * 86_400);
    expect(periodExpiry(NEXT_PERIOD)).toBe(month(2).getTime() / 1000 + 2 * 86_400);
    // December's count expires on 3 January of the next year.
    expect(periodExpiry('2026-12')).toBe(Date.UTC(2027, 0, 3) / 1000);
  });

  it('keep counting a reservation whose lookup never settled: a process that died mid-lookup never undercounts', async () => {
    const { counter: quota } = await counter();
    const { key } = await issueKey(store, { name: 'metered', quota: 1 });
    await quota.reserve(key); // never settled: its process died mid-lookup, perhaps after replying
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(reserving(quota, key)).rejects.toMatchObject({ code: 'quota_exceeded' });
  });

  it('grant a bulk the items the quota has left, across processes, and give back those that did not match', async () => {
    const a = (await counter()).counter;
    const b = (await counter()).counter;
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    const held = (await a.reserve(key))!;
    const grant = (await b.reserveItems(key, 8))!;
    expect(grant.granted).toBe(4);
    expect((await a.reserveItems(key, 8))!.granted).toBe(0);
    held.settle(false);
    expect(grant.settle(3)).toBe(1); // as of the reservation (the other's give-back is not seen), plus the one unmatched
    await Promise.all([a.close(), b.close()]); // give-backs travel in the background; closing awaits them
    const c = (await counter()).counter;
    const rest = (await c.reserveItems(key, 8))!;
    expect(rest.granted).toBe(2);
    expect(rest.settle(2)).toBe(0);
    await expect(reserving(c, key)).rejects.toMatchObject({ code: 'quota_exceeded' });
  });

  it('seed a bulk grant from the count in the store', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    await store.addQuotaUse(PERIOD, new Map([[key.id, 4]]));
    const { counter: quota } = await counter();
    const grant = (await quota.reserveItems(key, 3))!;
    expect(grant.granted).toBe(1);
    expect(grant.settle(1)).toBe(0);
  });

  it('admit lookups when Redis is unreachable and failing open', async () => {
    const { counter: quota, errors } = await counter({ url: DEAD_REDIS_URL });
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    expect((await quota.reserve(key))!.settle(true)).toBe(4);
    expect(await errors()).toBe(1);
  });

  it('refuse lookups with 503 when Redis is unreachable and failing closed', async () => {
    const { counter: quota } = await counter({ url: DEAD_REDIS_URL, mode: 'closed' });
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    await expect(reserving(quota, key)).rejects.toMatchObject({ code: 'unavailable', status: 503 });
  });
});
