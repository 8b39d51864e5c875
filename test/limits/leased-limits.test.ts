// Three limiters and quota counters sharing one Redis, as three servers do: the rate holds within 5 % over
// 10 s without a round trip per request, quotas are never exceeded, and with Redis killed each limits to its
// share, then they converge when it is back.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/auth/keys.js';
import { leaseCap } from '../../src/limits/lease.js';
import type { QuotaCounter } from '../../src/limits/quota.js';
import { waitForRedis } from '../../src/limits/redis/connection.js';
import { LeasedRateLimiter } from '../../src/limits/redis/leased-rate-limit.js';
import { ServerPresence } from '../../src/limits/redis/presence.js';
import { RedisQuotaCounter } from '../../src/limits/redis/quota.js';
import { isPromise } from '../../src/store/maybe-promise.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { type OwnRedis, ownRedis } from '../cluster/own-redis.js';
import { connected, dropPrefix, policy, REDIS_URL, testPrefix } from '../cluster/redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const prefixes: string[] = [];
const servers: LimitServer[] = [];
let store: Store;

interface LimitServer {
  limiter: LeasedRateLimiter;
  quota: QuotaCounter;
  presence: ServerPresence;
  made: ReturnType<typeof policy>;
}

/** One server's limits, as openLimits makes them: a heartbeat, a leased limiter and a quota counter. */
async function server(prefix: string, url = REDIS_URL): Promise<LimitServer> {
  const made = policy('open');
  const [buckets, counts] = [await connected(url), await connected(url)];
  const presence = new ServerPresence(buckets, prefix, made.failure);
  await presence.start();
  const limiter = new LeasedRateLimiter(buckets, prefix, made.failure, { presence });
  const quota = new RedisQuotaCounter(counts, prefix, made.failure, store);
  const made_ = { limiter, quota, presence, made };
  servers.push(made_);
  return made_;
}

/** Three servers on one Redis, each knowing there are three. */
async function three(url = REDIS_URL): Promise<LimitServer[]> {
  const prefix = testPrefix();
  prefixes.push(prefix);
  if (store === undefined) store = openSqliteStore(':memory:');
  const made = [await server(prefix, url), await server(prefix, url), await server(prefix, url)];
  await Promise.all(made.map((s) => s.presence.beat()));
  for (const s of made) expect(s.made.failure.servers).toBe(3);
  return made;
}

/** Every server offers `perSecond` requests of one key for `ms`: how many each admitted, and answered at once. */
async function hammer(made: LimitServer[], key: string, rate: number, ms: number, perSecond = 500) {
  const admitted = made.map(() => 0);
  let answered = 0;
  let atOnce = 0;
  const until = performance.now() + ms;
  await Promise.all(
    made.map(async (s, i) => {
      while (performance.now() < until) {
        for (let n = 0; n < perSecond / 100; n++) {
          const decision = s.limiter.take(key, rate);
          answered++;
          if (!isPromise(decision)) atOnce++;
          if ((await decision).allowed) admitted[i]!++;
        }
        await sleep(10);
      }
    }),
  );
  return { admitted, total: admitted.reduce((a, b) => a + b, 0), atOnce: atOnce / answered };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => Promise.all([s.limiter.close(), s.quota.close()])));
});
afterAll(async () => {
  await store?.close();
  await Promise.all(prefixes.map(dropPrefix));
});

describe('limits leased from Redis by three servers', () => {
  it('admit within 5 % of the rate over 10 s between them, most requests answered without waiting for Redis', async () => {
    const made = await three();
    const rate = 100;
    const seconds = 10;
    const load = await hammer(made, 'shared', rate, seconds * 1000);
    // The bucket starts full: one second's burst on top of rate × seconds, as with one bucket.
    const target = rate * seconds;
    expect(load.total).toBeLessThanOrEqual(target * 1.05 + rate);
    expect(load.total).toBeGreaterThanOrEqual(target * 0.95);
    expect(load.total - rate - target).toBeLessThanOrEqual(3 * leaseCap(rate, 3));
    for (const admitted of load.admitted) expect(admitted).toBeGreaterThan(target / 6); // each took a part
    // Over the rate, a request waits only when the bucket may hold a token again and no lease is at hand.
    expect(load.atOnce).toBeGreaterThan(0.6);
  }, 30_000);

  it('answer steady traffic within the rate without waiting for Redis', async () => {
    const made = await three();
    const load = await hammer(made, 'steady', 1_000, 3_000, 200);
    expect(load.total).toBeGreaterThan(3 * 3 * 200 * 0.8); // every request offered is admitted
    expect(load.atOnce).toBeGreaterThan(0.95);
  });

  it('never exceed a quota, however the servers share it, and hand its last units to whoever asks', async () => {
    const made = await three();
    const { key } = await issueKey(store, { name: 'metered', quota: 500 });
    const matched = made.map(() => 0);
    let atOnce = 0;
    await Promise.all(
      made.map(async (s, i) => {
        for (;;) {
          let reserving: ReturnType<QuotaCounter['reserve']>;
          try {
            reserving = s.quota.reserve(key);
          } catch {
            break; // 402: used up
          }
          if (!isPromise(reserving)) atOnce++;
          const ticket = await Promise.resolve(reserving).catch(() => null);
          if (ticket === null) break;
          ticket.settle(true);
          matched[i]!++;
          if (matched[i]! % 20 === 0) await sleep(1);
        }
      }),
    );
    expect(matched.reduce((a, b) => a + b, 0)).toBe(500);
    expect(atOnce).toBeGreaterThan(250);
  });
});

describe('limits of three servers when Redis is killed and started again', () => {
  let redis: OwnRedis | undefined;
  afterAll(async () => redis?.kill());

  it('limit each server to its share, say so once, and converge once Redis is back', async () => {
    redis = await ownRedis();
    const made = await three(redis.url);
    const rate = 60;
    await hammer(made, 'key', rate, 300); // leases under way, the bucket drained

    await redis.kill();
    await waitFor(() => made.every((s) => s.made.failure.local));
    for (const s of made) {
      expect(s.made.failure.standing()).toEqual({
        reason: "redis: unreachable, limiting locally to 1/3 of each key's rate",
        refusing: false,
      });
    }
    const alone = await hammer(made, 'key', rate, 2_000);
    // Each its share of 20 per second, a burst of 20 first: 60 in 2 s, at most.
    for (const admitted of alone.admitted) {
      expect(admitted).toBeGreaterThanOrEqual(40);
      expect(admitted).toBeLessThanOrEqual(62);
    }
    expect(alone.atOnce).toBe(1);

    await redis.start();
    await waitFor(() => made.every((s) => !s.made.failure.local), 10_000);
    for (const s of made) {
      expect(s.made.warnings).toEqual([
        "Redis is unreachable: limiting locally to 1/3 of each key's rate",
        'Redis answers again: limits are shared across servers again',
      ]);
    }
    const together = await hammer(made, 'key', rate, 3_000);
    expect(together.total).toBeLessThanOrEqual(rate * 3 * 1.05 + rate);
    expect(together.total).toBeGreaterThanOrEqual(rate * 3 * 0.9);
  }, 40_000);

  it('count a quota locally while Redis is gone, and add what was counted when it is back: nothing lost', async () => {
    redis ??= await ownRedis();
    const made = await three(redis.url);
    const { key } = await issueKey(store, { name: 'metered', quota: 300 });
    let matched = 0;
    const use = async (s: LimitServer, n: number) => {
      for (let i = 0; i < n; i++) {
        const ticket = await Promise.resolve()
          .then(() => s.quota.reserve(key))
          .catch(() => null);
        if (ticket === null) return;
        ticket.settle(true);
        matched++;
      }
    };
    for (const s of made) await use(s, 30);
    expect(matched).toBe(90);
    // The servers' journals fold their matched lookups into the store, as they do every 200 ms.
    await store.addQuotaUse(new Date().toISOString().slice(0, 7), new Map([[key.id, 90]]));
    // A lease asked for just before (units down to half) is answered first: Redis answers in order, so once
    // a later command is answered, so is the lease. Killed between executing a lease and answering it (an
    // fsync of the append-only file can hold the answer on a busy machine), Redis would keep its units
    // counted and the server would not know it had them: an overcount this test does not measure.
    const probe = await connected(redis.url);
    await probe.ping();
    probe.disconnect();
    await sleep(50);

    await redis.kill();
    await waitFor(() => made.every((s) => s.made.failure.local));
    await Promise.all(made.map((s) => use(s, 1_000))); // each to the end of its share
    const duringOutage = matched - 90;
    // A third each of the 210 left, less what a server saw others hold in Redis when it last asked.
    expect(duringOutage).toBeGreaterThanOrEqual(150);
    expect(duringOutage).toBeLessThanOrEqual(210);
    expect(matched).toBeLessThanOrEqual(300);

    await redis.start();
    await waitFor(() => made.every((s) => !s.made.failure.local), 10_000);
    await Promise.all(made.map((s) => use(s, 1_000))); // what is left, once the counts are added
    expect(matched).toBeLessThanOrEqual(300);
    await Promise.all(made.map((s) => s.quota.close())); // units held go back
    const client = await connected(redis.url);
    const period = new Date().toISOString().slice(0, 7);
    const used = Number(await client.get(`${prefixes.at(-1)}quota:{${key.id}:${period}}:used`));
    client.disconnect();
    expect(used).toBe(matched);
  }, 40_000);

  it('keep the units of a lease that ended while Redis was gone, and give them back once it answers', async () => {
    redis ??= await ownRedis();
    store ??= openSqliteStore(':memory:');
    const prefix = testPrefix();
    prefixes.push(prefix);
    const made = policy('open');
    let nowMs = 0;
    // No heartbeat of its own: Redis is found gone by the lease given back after the kill, not before it.
    const [buckets, counts] = [await connected(redis.url), await connected(redis.url)];
    const presence = new ServerPresence(buckets, prefix, made.failure);
    const quota = new RedisQuotaCounter(counts, prefix, made.failure, store, {
      clock: () => nowMs,
    });
    const { key } = await issueKey(store, { name: 'held', quota: 1_000 });
    let matched = 0;
    const use = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const ticket = await quota.reserve(key);
        ticket!.settle(true);
        matched++;
      }
    };
    await use(10); // leases of 1, 2, 4 and 8: units held

    await redis.kill();
    nowMs += 2_000; // the lease ends: the next sweep gives its units back, and Redis is gone
    await waitFor(() => made.failure.local);
    await use(5); // counted here

    await redis.start();
    // Both connections retry with a backoff (up to 2 s): the heartbeat that follows their reconnection ends
    // the outage. A beat before it fails as the outage's beats did (CI drew that once).
    for (const client of [buckets, counts]) expect(await waitForRedis(client, 10_000)).toBe(true);
    await presence.beat();
    expect(made.failure.local).toBe(false);
    await use(5);
    await quota.close();
    const client = await connected(redis.url);
    const period = new Date().toISOString().slice(0, 7);
    const used = Number(await client.get(`${prefix}quota:{${key.id}:${period}}:used`));
    client.disconnect();
    expect(used).toBe(matched);
  }, 20_000);
});

async function waitFor(condition: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out');
    await sleep(20);
  }
}
