// Redis for tests: the machine's server at REDIS_URL (default 127.0.0.1:6379), a key prefix per run.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis, RedisFailurePolicy, waitForRedis } from '../../src/limits/redis/connection.js';
import { createMetrics } from '../../src/metrics.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Nothing listens on port 1: every connection is refused at once. */
export const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

/** A prefix no other test run uses, so runs in parallel never share a bucket. */
export const testPrefix = () => `enrich-test:${process.pid}-${randomBytes(4).toString('hex')}:`;

export async function connected(url = REDIS_URL): Promise<Redis> {
  const client = connectRedis(url);
  client.on('error', () => {});
  await waitForRedis(client, url === DEAD_REDIS_URL ? 100 : 2_000);
  return client;
}

/** A failure policy with its own metrics and a log that records what it was told. */
export function policy(mode: 'open' | 'closed') {
  const metrics = createMetrics();
  const warnings: string[] = [];
  const failure = new RedisFailurePolicy(mode, metrics);
  failure.log = { warn: (_details, message) => warnings.push(message) };
  const errors = async () => (await metrics.limitBackendErrors.get()).values.reduce((n, v) => n + v.value, 0);
  return { failure, warnings, errors, metrics };
}

/** Deletes every key under a prefix. */
export async function dropPrefix(prefix: string): Promise<void> {
  const client = await connected();
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  await client.quit();
}
