// The Redis connection behind shared limits, tuned to fail fast, and what to do when Redis is gone.
import { Redis } from 'ioredis';
import { maskSecrets } from '../../config.js';
import { ProblemError } from '../../errors.js';
import type { Metrics } from '../../metrics.js';

/** `open`: admit the request (and count it nowhere); `closed`: answer 503 until Redis is back. */
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

/**
 * Applies ENRICH_REDIS_FAILURE to a failed limit operation: counts it in
 * `enrich_limit_backend_errors_total`, warns at most once per `warnEveryMs` (an outage must not
 * become a log line per request), then either lets the caller admit the request or throws a 503.
 */
export class RedisFailurePolicy {
  log: LimitLog | undefined;
  private lastWarnMs = Number.NEGATIVE_INFINITY;
  private unreported = 0;

  constructor(
    readonly mode: RedisFailureMode,
    private readonly metrics: Pick<Metrics, 'limitBackendErrors'>,
    private readonly warnEveryMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A limit could not be checked: returns when the request may go ahead (`open`), throws otherwise. */
  failed(limit: 'rate' | 'quota', error: unknown): void {
    this.record(limit, error);
    if (this.mode === 'closed') {
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

  /** Counts and reports a failure without deciding anything (a count that could not be written). */
  record(limit: 'rate' | 'quota', error: unknown): void {
    this.metrics.limitBackendErrors.inc({ limit });
    this.warn(error, `Redis is unavailable: ${this.mode === 'open' ? 'admitting' : 'refusing'} requests`);
  }

  /** A warning about Redis, at most one per interval, saying how many were held back. */
  warn(error: unknown, message: string): void {
    this.unreported++;
    const nowMs = this.now();
    if (nowMs - this.lastWarnMs < this.warnEveryMs) return;
    this.lastWarnMs = nowMs;
    const details = { err: error, failures: this.unreported, policy: this.mode };
    this.unreported = 0;
    if (this.log) this.log.warn(details, message);
    else
      process.stderr.write(
        `enrich: ${message} (${maskSecrets((error as Error)?.message ?? String(error))})\n`,
      );
  }
}
