import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/auth/keys.js';
import { ProblemError } from '../../src/errors.js';
import { LimitChannel, type LimitPort } from '../../src/limits/cluster/channel.js';
import { ClusterQuotaCounter, ClusterRateLimiter } from '../../src/limits/cluster/limits.js';
import { LimitOwner } from '../../src/limits/cluster/owner.js';
import { MemoryQuotaCounter } from '../../src/limits/quota.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

/** A worker's port wired to the owner as cluster IPC would be: serialised, and delivered a turn later. */
function workerPort(owner: LimitOwner, workerId: number): LimitPort {
  const listeners: Array<(message: unknown) => void> = [];
  return {
    send: (message) => {
      const sent = JSON.parse(JSON.stringify(message));
      setImmediate(() =>
        owner.receive(workerId, sent, (reply) => {
          const received = JSON.parse(JSON.stringify(reply));
          setImmediate(() => {
            for (const listener of listeners) listener(received);
          });
        }),
      );
    },
    onMessage: (listener) => listeners.push(listener),
  };
}

describe('limits shared by cluster workers through the primary', () => {
  let store: Store;
  let owner: LimitOwner;
  const worker = (id: number) => new LimitChannel(workerPort(owner, id));

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    // A clock that stands still: no token refills while the test runs, so counts are exact.
    owner = new LimitOwner(store, new MemoryRateLimiter(() => 1_000_000), new MemoryQuotaCounter(store));
  });
  afterEach(async () => {
    await owner.close();
    await store.close();
  });

  it('admit exactly one bucket between all workers, however the requests interleave', async () => {
    const limiters = [1, 2, 3].map((id) => new ClusterRateLimiter(worker(id)));
    const decisions = await Promise.all(Array.from({ length: 45 }, (_, i) => limiters[i % 3]!.take('k', 10)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 1)).toBe(true);
    expect((await limiters[0]!.take('other', 10)).allowed).toBe(true);
  });

  it('count only matched lookups, whichever worker served them, and refuse once used up', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 2 });
    const [a, b] = [1, 2].map((id) => new ClusterQuotaCounter(worker(id)));
    expect((await a!.reserve(key))!.settle(false)).toBe(2);
    expect((await b!.reserve(key))!.settle(true)).toBe(1);
    expect((await a!.reserve(key))!.settle(true)).toBe(0);
    const refused = await b!.reserve(key).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({ code: 'quota_exceeded', headers: { 'enrich-quota-remaining': '0' } });
    await owner.close();
  });

  it('hold a reservation in flight on one worker against lookups on another', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 1 });
    const [a, b] = [1, 2].map((id) => new ClusterQuotaCounter(worker(id)));
    const held = await a!.reserve(key);
    await expect(b!.reserve(key)).rejects.toMatchObject({ code: 'quota_exceeded' });
    held!.settle(false);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the settlement travels to the primary
    expect(await b!.reserve(key)).not.toBeNull();
  });

  it('count the reservations of a worker that died mid-lookup: it may have replied, so never undercount', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 2 });
    await new ClusterQuotaCounter(worker(1)).reserve(key);
    const survivor = new ClusterQuotaCounter(worker(2));
    owner.release(1);
    expect((await survivor.reserve(key))!.settle(true)).toBe(0);
    await expect(survivor.reserve(key)).rejects.toMatchObject({ code: 'quota_exceeded' });
  });

  it('charge a bulk its items on the one bucket all workers share', async () => {
    const [a, b] = [1, 2].map((id) => new ClusterRateLimiter(worker(id)));
    expect(await a!.take('k', 10, 30)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await b!.take('k', 10)).toMatchObject({ allowed: false, retryAfterSeconds: 3, waitMs: 2100 });
  });

  it("grant a bulk's items against reservations held by other workers, and free the unmatched", async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    const [a, b] = [1, 2].map((id) => new ClusterQuotaCounter(worker(id)));
    const held = await a!.reserve(key);
    const grant = (await b!.reserveItems(key, 8))!;
    expect(grant.granted).toBe(4);
    expect(grant.settle(3)).toBe(1); // 5 - 1 held - 4 granted, plus the one not matched
    held!.settle(false);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the settlements travel to the primary
    expect((await a!.reserveItems(key, 8))!.granted).toBe(2);
  });

  it('count every item granted to a worker that died mid-bulk', async () => {
    const { key } = await issueKey(store, { name: 'metered', quota: 5 });
    await new ClusterQuotaCounter(worker(1)).reserveItems(key, 3);
    owner.release(1);
    expect((await new ClusterQuotaCounter(worker(2)).reserveItems(key, 8))!.granted).toBe(2);
  });

  it('answer 503 when the primary does not answer in time', async () => {
    const silent = new LimitChannel({ send: () => {}, onMessage: () => {} }, 50);
    await expect(new ClusterRateLimiter(silent).take('k', 10)).rejects.toMatchObject({
      code: 'unavailable',
      status: 503,
      headers: { 'retry-after': '1' },
    });
  });

  it('batch the calls of one event-loop turn into one message', async () => {
    const sent: unknown[] = [];
    const port = workerPort(owner, 1);
    const channel = new LimitChannel({
      ...port,
      send: (message) => {
        sent.push(message);
        port.send(message);
      },
    });
    const limiter = new ClusterRateLimiter(channel);
    await Promise.all(Array.from({ length: 5 }, () => limiter.take('k', 10)));
    expect(sent).toHaveLength(1);
  });
});
