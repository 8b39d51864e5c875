// The only file that listens: starts the app on a configured store, over HTTP or HTTPS, with the
// timeouts and connection bound that keep slow and idle clients from holding it; shuts down gracefully.

import cluster from 'node:cluster';
import type { Server, ServerOptions } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { JournalFolder } from './accounting/folder.js';
import { buildApp } from './app.js';
import { answerMetricsRequests, scrapeCluster } from './cluster-metrics.js';
import { type Config, listenAddress } from './config.js';
import { readTls, reloadOnHangup, type TlsCredentials, tlsFiles } from './http/tls.js';
import { openLimits } from './limits/open.js';
import { safeLogSerializers } from './log.js';
import { createMetrics } from './metrics.js';
import { buildMetricsApp } from './metrics-app.js';
import { type Flushed, onShutdownSignal, reportToPrimary, stoppedMessage } from './shutdown.js';
import type { Store } from './store/store.js';
import { countOutcomes, type Dispatching, startDispatch, startDispatchThread } from './webhooks/start.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Where /metrics is served, when ENRICH_METRICS_ADDRESS gives it an address of its own. */
  metricsUrl?: string | undefined;
  /**
   * Stops accepting connections, lets in-flight requests finish, folds the accounting journal, then
   * closes the store; resolves with what was flushed.
   */
  stop(): Promise<Flushed>;
}

/**
 * The HTTP server's own limits: a client that has not sent its headers (or sent nothing) within
 * headersTimeoutMs, or its whole request within requestTimeoutMs, gets a 408 and the connection is
 * closed. Node checks every connection at an interval; a quarter of the headers' time keeps a cut-off
 * within 25% of it.
 */
function serverOptions(
  config: Config,
  tls: TlsCredentials | undefined,
): ServerOptions & { tls?: TlsCredentials } {
  return {
    headersTimeout: config.headersTimeoutMs,
    // The whole request's bound is app.ts's (src/http/request-deadline.ts): Node's cannot spare a bulk
    // stream, whose body arrives at its key's rate, for hours at a low one.
    requestTimeout: 0,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(config.headersTimeoutMs / 4))),
    ...(tls ? { tls } : {}),
  };
}

/**
 * At most `max` open connections; more are closed as they arrive. A server on its own has Node do it; in
 * a node:cluster worker Node does not (the primary accepts, and hands connections over), so the worker
 * counts its own.
 */
function capConnections(server: Server, max: number): void {
  if (!cluster.isWorker) {
    server.maxConnections = max;
    return;
  }
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= max) return void socket.destroy();
    open++;
    socket.once('close', () => open--);
  });
}

/** How often a server prunes the change log of entries older than its retention. */
const PRUNE_CHANGES_EVERY_MS = 3_600_000;

/**
 * Prunes the change log now and hourly, in the background: small batches, each a short transaction of its
 * own (ChangeStore.pruneChanges), so writes and lookups go on meanwhile. Returns what stops it.
 */
export function pruneChangesInBackground(
  store: Pick<Store, 'pruneChanges'>,
  retentionDays: number,
  onError: (error: unknown) => void,
  everyMs = PRUNE_CHANGES_EVERY_MS,
): () => void {
  let running = false;
  const prune = () => {
    if (running) return;
    running = true;
    store
      .pruneChanges(new Date(Date.now() - retentionDays * 86_400_000))
      .catch(onError)
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(prune, 0);
  const timer = setInterval(prune, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

export interface StartOptions {
  /**
   * Dispatch webhooks on a thread of their own, with its own connection to the configured store (what
   * `enrich serve` does); else on this thread, through `store` (a test's store, an in-memory one).
   */
  dispatchThread?: boolean;
}

export async function startServer(
  config: Config,
  store: Store,
  options: StartOptions = {},
): Promise<RunningServer> {
  const tls = tlsFiles(config);
  // What a process that died left in the journal is folded in before serving: the quota counts this
  // server reads from the store then include every lookup that process answered.
  if (config.accounting !== false) await new JournalFolder(store, config.journalDir).fold();
  const metrics = cluster.isWorker
    ? createMetrics({ worker: String(cluster.worker!.id), scrapeCluster })
    : createMetrics();
  if (cluster.isWorker) answerMetricsRequests(metrics.registry);
  const limits = await openLimits(config, store, metrics);
  let flushed: Flushed = { lookupsFolded: 0 };
  let dispatch: Dispatching | undefined;
  const app = await buildApp({
    store,
    metrics,
    limiter: limits.limiter,
    quota: limits.quota,
    limitsStanding: limits.standing,
    accessLog: config.accessLog,
    auditRetentionDays: config.auditRetentionDays,
    accounting: config.accounting,
    corsOrigins: config.corsOrigins,
    unauthenticatedRate: config.unauthenticatedRate,
    trustProxy: config.trustProxy,
    server: serverOptions(config, tls && readTls(tls)),
    requestTimeoutMs: config.requestTimeoutMs,
    streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    metricsToken: config.metricsToken,
    metricsElsewhere: config.metricsAddress !== undefined,
    defaultRate: config.defaultRate,
    webhooks: {
      retrySchedule: config.webhookRetrySchedule,
      allowPrivate: config.webhookAllowPrivate,
      wake: () => dispatch?.wake(),
    },
    lists: { dir: config.listsDir },
    journal: {
      dir: config.journalDir,
      location: {
        dbPath: config.dbPath,
        databaseUrl: config.databaseUrl,
        databaseReadUrl: config.databaseReadUrl,
      },
    },
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'headers.authorization'],
      serializers: safeLogSerializers,
    },
    onFlushed: (what) => {
      flushed = what;
    },
  });
  limits.logTo(app.log);
  store.logLocalTo?.({ info: (m) => app.log.info(m), warn: (m) => app.log.warn(m) });
  store.watchIndex?.((error) => app.log.warn({ err: error }, 'serving index: cannot reconcile'));
  // Longer than common load balancers' idle timeouts (60 s), so that the balancer closes first.
  app.server.keepAliveTimeout = config.keepAliveTimeoutMs;
  capConnections(app.server, config.maxConnections);
  // Before listening: a worker's primary passes SIGHUP on once the worker listens, which it learns of
  // before this process's listen() returns; a signal with no handler yet would kill the worker.
  if (tls) reloadOnHangup(app.server as unknown as HttpsServer, tls, app.log);
  const url = await app.listen({ port: config.port, host: config.host });
  // /metrics on an address of its own (plain HTTP: a private one), closed with the API.
  const metricsApp = config.metricsAddress
    ? await buildMetricsApp({
        metrics,
        token: config.metricsToken,
        log: app.log,
        requestTimeoutMs: config.requestTimeoutMs,
      })
    : undefined;
  const metricsUrl =
    metricsApp &&
    (await metricsApp.listen(listenAddress(config.metricsAddress!)).catch(async (error: unknown) => {
      await app.close(); // its address taken, say: the API is not left serving half-configured
      throw error;
    }));

  const stopPruning = pruneChangesInBackground(store, config.changesRetentionDays, (error) =>
    app.log.error({ err: error }, 'pruning the change log failed'),
  );
  // Webhooks are dispatched by one process: this one, unless it is a cluster's worker (the primary does).
  const dispatchFailed = (error: unknown) => app.log.error({ err: error }, 'webhook dispatch failed');
  const ownThread = options.dispatchThread && (config.databaseUrl || config.dbPath !== ':memory:');
  if (!cluster.isWorker) {
    dispatch = ownThread
      ? startDispatchThread(config, config, countOutcomes(metrics), dispatchFailed)
      : startDispatch(config, store, countOutcomes(metrics), dispatchFailed);
  }

  let stopping: Promise<Flushed> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopPruning();
      const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
      force.unref();
      await metricsApp?.close();
      await app.close();
      clearTimeout(force);
      await dispatch?.close();
      await store.close();
      return flushed;
    })();
    return stopping;
  };
  // One line as the stop starts; then a worker tells its primary what it flushed (the primary says it
  // for every worker), and a server on its own says it in a last line.
  onShutdownSignal((signal) => {
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    stop().then(
      (what) => {
        if (cluster.isWorker) return reportToPrimary(what);
        app.log.info(what, stoppedMessage(what));
        process.exit(0);
      },
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
  return { app, url, metricsUrl, stop };
}
