// The Redis connection behind shared limits, tuned to fail fast, and what to do when Redis is gone.
import { Redis } from 'ioredis';
import { maskSecrets } from '../../config.js';
import { ProblemError } from '../../errors.js';
import type { Metrics } from '../../metrics.js';

/** `open`: limit each server to its share of every rate until Redis is back; `closed`: answer 503 meanwhile. */
export type RedisFailureMode = 'open' | 'closed';

/** Where limit warnings go: the app's logger once it exists. */
export interface LimitLog {
  warn(details: object, message: string): void;
}

/** How long a command may take before the request stops waiting for it, ms. */
const COMMAND_TIMEOUT_MS = 250;

/**
 * A connection that never queues: while Redis is unreachable every command fails at once instead of
 * holding the request, and ioredis keeps reconnecting in the background (at most every 2 s).
 */
export function connectRedis(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
}

/** Connects, waiting at most `ms`; a Redis that is down at start is left to reconnect by itself. */
export async function waitForRedis(client: Redis, ms = 1_000): Promise<boolean> {
  if (client.status === 'wait') client.connect().catch(() => {});
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    client.once('ready', onReady);
  });
}

/** Closes politely when Redis answers, at once otherwise. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

/** Why limits are not shared across servers at the moment, as /readyz tells it. */
export interface LimitsStanding {
  /** What /readyz says. */
  reason: string;
  /** True when keyed requests are refused meanwhile (`closed`): /readyz answers 503. */
  refusing: boolean;
}

/**
 * Applies ENRICH_REDIS_FAILURE to a failed limit operation and keeps the standing of Redis: the caller
 * either limits the request locally to this server's share (`open`) or answers 503 (`closed`); each such
 * request counts in `enrich_limit_backend_errors_total`. The outage is logged once when it
 * starts and once when it ends (`closed` also warns at most every `warnEveryMs` while refusing).
 */
export class RedisFailurePolicy {
  log: LimitLog | undefined;
  /** Servers that announced themselves in Redis when it last answered (this one included). */
  servers = 1;
  private lastWarnMs = Number.NEGATIVE_INFINITY;
  private unreported = 0;
  private downSince: number | undefined;

  constructor(
    readonly mode: RedisFailureMode,
    private readonly metrics: Pick<Metrics, 'limitBackendErrors'>,
    private readonly warnEveryMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while Redis is unreachable and limits are kept in this process (`open`). */
  get local(): boolean {
    return this.downSince !== undefined && this.mode === 'open';
  }

  /** Why limits are not shared now; undefined while Redis answers. */
  standing(): LimitsStanding | undefined {
    if (this.downSince === undefined) return undefined;
    if (this.mode === 'closed')
      return {
        reason: 'redis: unreachable, keyed requests are refused (ENRICH_REDIS_FAILURE=closed)',
        refusing: true,
      };
    return {
      reason: `redis: unreachable, limiting locally to ${this.share()} of each key's rate`,
      refusing: false,
    };
  }

  /** A limit could not be checked: returns when the request may be limited locally (`open`), throws otherwise. */
  failed(limit: 'rate' | 'quota', error: unknown): void {
    this.unreachable(error);
    if (this.mode === 'closed') {
      this.metrics.limitBackendErrors.inc({ limit });
      this.warn(error, 'Redis is unavailable: refusing requests');
      throw new ProblemError(
        'unavailable',
        'Rate limits cannot be checked at the moment; retry shortly.',
        {},
        {
          'retry-after': '1',
        },
      );
    }
  }

  /** A limit checked in this process's memory instead of Redis (`open`): counted as Redis's failure. */
  checkedLocally(limit: 'rate' | 'quota'): void {
    this.metrics.limitBackendErrors.inc({ limit });
  }

  /** A call that decided nothing failed (a count given back, a lease returned): Redis may be gone. */
  record(error: unknown): void {
    this.unreachable(error);
  }

  /** Redis did not answer (a call, or the servers' heartbeat): the outage starts, told once. */
  unreachable(error: unknown): void {
    if (this.downSince !== undefined) return;
    this.downSince = this.now();
    const local =
      this.mode === 'open'
        ? `limiting locally to ${this.share()} of each key's rate`
        : 'refusing keyed requests';
    this.tell({ err: error, policy: this.mode, servers: this.servers }, `Redis is unreachable: ${local}`);
  }

  /** Redis answered, with the number of live servers when the heartbeat asked: the outage, if any, ends. */
  answered(servers?: number): void {
    if (servers !== undefined) this.servers = Math.max(1, servers);
    if (this.downSince === undefined) return;
    const seconds = Math.round((this.now() - this.downSince) / 1000);
    this.downSince = undefined;
    this.tell({ policy: this.mode, seconds }, 'Redis answers again: limits are shared across servers again');
  }

  /** A warning about Redis, at most one per interval, saying how many were held back. */
  warn(error: unknown, message: string): void {
    this.unreported++;
    const nowMs = this.now();
    if (nowMs - this.lastWarnMs < this.warnEveryMs) return;
    this.lastWarnMs = nowMs;
    const details = { err: error, failures: this.unreported, policy: this.mode };
    this.unreported = 0;
    this.tell(details, message);
  }

  private share(): string {
    return this.servers === 1 ? 'all' : `1/${this.servers}`;
  }

  private tell(details: { err?: unknown; [detail: string]: unknown }, message: string): void {
    if (this.log) this.log.warn(details, message);
    else {
      const error = details.err as Error | undefined;
      const cause = error === undefined ? '' : ` (${maskSecrets(error?.message ?? String(error))})`;
      process.stderr.write(`enrich: ${message}${cause}\n`);
    }
  }
}
