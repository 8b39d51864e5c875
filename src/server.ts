// The only file that listens: starts the app on a configured store and shuts down gracefully on SIGTERM/SIGINT.

import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { JournalFolder } from './accounting/folder.js';
import { buildApp } from './app.js';
import { answerMetricsRequests, scrapeCluster } from './cluster-metrics.js';
import type { Config } from './config.js';
import { openLimits } from './limits/open.js';
import { createMetrics } from './metrics.js';
import type { Store } from './store/store.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the store. */
  stop(): Promise<void>;
}

export async function startServer(config: Config, store: Store): Promise<RunningServer> {
  // What a process that died left in the journal is folded in before serving: the quota counts this
  // server reads from the store then include every lookup that process answered.
  if (config.accounting !== false) await new JournalFolder(store, config.journalDir).fold();
  const metrics = cluster.isWorker
    ? createMetrics({ worker: String(cluster.worker!.id), scrapeCluster })
    : createMetrics();
  if (cluster.isWorker) answerMetricsRequests(metrics.registry);
  const limits = await openLimits(config, store, metrics);
  const app = await buildApp({
    store,
    metrics,
    limiter: limits.limiter,
    quota: limits.quota,
    accessLog: config.accessLog,
    auditRetentionDays: config.auditRetentionDays,
    accounting: config.accounting,
    corsOrigins: config.corsOrigins,
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
    },
  });
  limits.logTo(app.log);
  app.server.keepAliveTimeout = 72_000; // longer than common load balancers' idle timeouts
  app.server.headersTimeout = 75_000;
  // A bulk stream's body arrives at the key's rate, for hours at a low one: no bound on a whole request,
  // but a connection on which nothing moves either way for two minutes is dropped.
  app.server.requestTimeout = 0;
  app.server.timeout = 120_000;
  const url = await app.listen({ port: config.port, host: config.host });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
      force.unref();
      await app.close();
      clearTimeout(force);
      await store.close();
    })();
    return stopping;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      stop().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app, url, stop };
}
