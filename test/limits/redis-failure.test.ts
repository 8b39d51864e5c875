import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueKey } from '../../src/auth/keys.js';
import { openLimits } from '../../src/limits/open.js';
import { createMetrics } from '../../src/metrics.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { DEAD_REDIS_URL, testPrefix } from '../cluster/redis.js';
import { PEOPLE, seed } from '../helpers/app.js';

describe('lookups while Redis is unreachable', () => {
  let store: Store;
  let app: FastifyInstance;

  async function serve(redisFailure: 'open' | 'closed') {
    store = openSqliteStore(':memory:');
    await seed(store, 'people', PEOPLE);
    const metrics = createMetrics();
    const limits = await openLimits(
      { redisUrl: DEAD_REDIS_URL, redisFailure, redisPrefix: testPrefix() },
      store,
      metrics,
    );
    app = await buildApp({
      store,
      metrics,
      limiter: limits.limiter,
      quota: limits.quota,
      limitsStanding: limits.standing,
    });
    limits.logTo({ warn: () => {} });
    const { token } = await issueKey(store, { name: 'metered', rate: 5, quota: 100 });
    const lookup = () =>
      app.inject({ url: `/people?id=${PEOPLE[0]!.id}`, headers: { authorization: `Bearer ${token}` } });
    return { lookup };
  }

  afterEach(async () => {
    await app.close();
    await store.close();
  });

  it("are limited to the server's share when failing open, counted in enrich_limit_backend_errors_total, and /readyz says so", async () => {
    const { lookup } = await serve('open');
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 8 }, lookup));
    expect(Date.now() - started).toBeLessThan(2_000);
    // Never saw another server: its share is the whole rate of 5.
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const metrics = (await app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/enrich_limit_backend_errors_total\{limit="rate"\} 8/);
    expect(metrics).toMatch(/enrich_limit_backend_errors_total\{limit="quota"\} 5/);
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'degraded',
      reasons: ["redis: unreachable, limiting locally to all of each key's rate"],
    });
  });

  it('are refused with 503 unavailable and Retry-After when failing closed', async () => {
    const { lookup } = await serve('closed');
    const response = await lookup();
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ code: 'unavailable', status: 503 });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().detail).toMatch(/^redis: unreachable, keyed requests are refused/);
  });
});
