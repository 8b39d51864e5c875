// Each server announces itself in Redis every second, so that every server knows how many share the limits
// (its share when Redis is gone) and learns that Redis is back without waiting for a request.
import { randomUUID } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import type { RedisFailurePolicy } from './connection.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    enrichAnnounce(servers: string, id: string, ttlMs: number): Result<number, Context>;
  }
}

/** How often a server announces itself, ms. */
export const HEARTBEAT_MS = 1_000;
/** A server not heard from for this long is no longer counted, ms. */
export const HEARTBEAT_TTL_MS = 3_000;

/**
 * KEYS[1]: a sorted set of servers by when each last announced itself (Redis's clock); ARGV: this server's
 * id, the time to live. Drops the silent ones and answers how many are left. One key rather than one per
 * server, so that counting needs no SCAN.
 */
const ANNOUNCE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`;

/**
 * This server's heartbeat under `{prefix}servers`: each beat tells the policy how many servers are live,
 * or that Redis is unreachable.
 */
export class ServerPresence {
  readonly id = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
    private readonly everyMs = HEARTBEAT_MS,
  ) {
    redis.defineCommand('enrichAnnounce', { numberOfKeys: 1, lua: ANNOUNCE });
  }

  /** Announces this server now and every interval after, until stopped. */
  start(): Promise<void> {
    this.timer = setInterval(() => this.beat(), this.everyMs).unref();
    return this.beat();
  }

  /** One announcement; a beat still under way is not doubled. */
  beat(): Promise<void> {
    this.beating ??= this.redis
      .enrichAnnounce(this.key, this.id, HEARTBEAT_TTL_MS)
      .then(
        (servers) => this.policy.answered(servers),
        (error: unknown) => this.policy.unreachable(error),
      )
      .finally(() => {
        this.beating = undefined;
      });
    return this.beating;
  }

  /** Stops announcing and leaves the set, so that the others' share grows at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    if (this.redis.status === 'ready') await this.redis.zrem(this.key, this.id).catch(() => {});
  }

  private get key(): string {
    return `${this.prefix}servers`;
  }
}
