// Which limiters a server uses: Redis when configured, else the cluster primary's in a worker, else its own.
import cluster from 'node:cluster';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { AccountingStore } from '../store/accounting.js';
import { LimitChannel, processPort } from './cluster/channel.js';
import { ClusterQuotaCounter, ClusterRateLimiter } from './cluster/limits.js';
import { MemoryQuotaCounter, type QuotaCounter } from './quota.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit.js';
import type { LimitLog, LimitsStanding } from './redis/connection.js';

export interface Limits {
  limiter: RateLimiter;
  quota: QuotaCounter;
  /** Sends limit warnings to the app's logger, once there is one. */
  logTo(log: LimitLog): void;
  /** Why limits are not shared across servers now (Redis unreachable), for /readyz; none without Redis. */
  standing?(): LimitsStanding | undefined;
}

export type LimitsConfig = Pick<Config, 'redisUrl' | 'redisFailure' | 'redisPrefix'>;

/**
 * Opens the limits for one server process. With REDIS_URL they hold across every instance; in a
 * cluster worker without it, across the machine's workers; otherwise within this process.
 * Both are closed with the app that uses them.
 */
export async function openLimits(
  config: LimitsConfig,
  store: AccountingStore,
  metrics: Metrics,
): Promise<Limits> {
  if (config.redisUrl) return openRedisLimits(config.redisUrl, config, store, metrics);
  if (cluster.isWorker) {
    const channel = new LimitChannel(processPort());
    return { limiter: new ClusterRateLimiter(channel), quota: new ClusterQuotaCounter(channel), logTo() {} };
  }
  return { limiter: new MemoryRateLimiter(), quota: new MemoryQuotaCounter(store), logTo() {} };
}

async function openRedisLimits(
  url: string,
  config: LimitsConfig,
  store: AccountingStore,
  metrics: Metrics,
): Promise<Limits> {
  // Loaded only when configured: ioredis adds some 20 MB to a process that never talks to Redis.
  const { connectRedis, RedisFailurePolicy, waitForRedis } = await import('./redis/connection.js');
  const { RedisQuotaCounter } = await import('./redis/quota.js');
  const { LeasedRateLimiter } = await import('./redis/leased-rate-limit.js');
  const { ServerPresence } = await import('./redis/presence.js');
  const policy = new RedisFailurePolicy(config.redisFailure, metrics);
  // One connection each, so that each closes its own when the app closes.
  const buckets = connectRedis(url);
  const counts = connectRedis(url);
  for (const client of [buckets, counts])
    client.on('error', (error) => policy.warn(error, 'Redis connection failed'));
  await Promise.all([waitForRedis(buckets), waitForRedis(counts)]);
  // Announced before the first request, so that the count of servers (each one's share) is known; a Redis
  // that does not answer is logged once here, and once again when it does.
  const presence = new ServerPresence(buckets, config.redisPrefix, policy);
  await presence.start();
  return {
    limiter: new LeasedRateLimiter(buckets, config.redisPrefix, policy, { presence }),
    quota: new RedisQuotaCounter(counts, config.redisPrefix, policy, store),
    logTo(log) {
      policy.log = log;
    },
    standing: () => policy.standing(),
  };
}
