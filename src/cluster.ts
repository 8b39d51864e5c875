// Every core: the primary forks one server per worker, owns the limits when there is no Redis,
// restarts workers that die, and on SIGTERM/SIGINT stops them gracefully before exiting itself.
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { JournalFolder } from './accounting/folder.js';
import { MetricsGatherer } from './cluster-metrics.js';
import { type Config, maskSecrets } from './config.js';
import { LimitOwner } from './limits/cluster/owner.js';
import { createMetrics } from './metrics.js';
import { startServer } from './server.js';
import { type Flushed, isStoppedMessage, onShutdownSignal, stoppedMessage } from './shutdown.js';
import type { Store } from './store/store.js';
import { countOutcomes, type Dispatching, startDispatch } from './webhooks/start.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** A worker that dies sooner than this after starting is crashing: restarts back off. */
const HEALTHY_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

export const isWorker = () => cluster.isWorker;

/** pino's numbers for the levels LOG_LEVEL may name. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

/** One pino-compatible JSON line on stdout, like the workers' own logs, at or above LOG_LEVEL as theirs. */
function primaryLog(threshold: string) {
  const least = LEVELS[threshold as keyof typeof LEVELS] ?? LEVELS.info;
  return (level: 'info' | 'warn' | 'error', msg: string, details: object = {}) => {
    if (LEVELS[level] < least) return;
    const line = {
      level: LEVELS[level],
      time: Date.now(),
      pid: process.pid,
      role: 'primary',
      ...details,
      msg,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
}

/**
 * Runs a worker's server. A signal before it serves ends the worker at once: there is nothing to drain.
 * Once it serves, the first SIGTERM/SIGINT starts startServer's graceful stop, and later ones (a
 * terminal's Ctrl-C reaches the whole process group, then the primary forwards its own) are absorbed
 * rather than killing the worker mid-drain.
 */
export async function startWorker(config: Config, store: Store): Promise<void> {
  let serving = false;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (!serving) process.exit(0);
    });
  }
  try {
    await startServer(config, store);
  } catch (error) {
    // The IPC channel would keep a failed worker alive: exit once the error has been reported.
    setImmediate(() => process.exit(1));
    throw error;
  }
  serving = true;
}

type Address = { address: string; port: number; addressType: number | string };

function urlOf(address: Address, scheme: 'http' | 'https'): string {
  const host =
    address.addressType === 6 || address.addressType === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}

/** Resolves with the URL once `count` workers listen; rejects if a worker exits first. */
function allListening(count: number, scheme: 'http' | 'https'): Promise<string> {
  return new Promise((resolve, reject) => {
    let listening = 0;
    const done = () => {
      cluster.off('listening', onListening);
      cluster.off('exit', onExit);
    };
    const onListening = (_worker: Worker, address: Address) => {
      if (++listening < count) return;
      done();
      resolve(urlOf(address, scheme));
    };
    const onExit = (_worker: Worker, code: number | null, signal: string | null) => {
      done();
      reject(
        new Error(`a worker exited while starting (${signal ?? `code ${code}`}); see its message above`),
      );
    };
    cluster.on('listening', onListening);
    cluster.on('exit', onExit);
  });
}

const liveWorkers = () =>
  Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

/**
 * Forks `config.workers` servers sharing one port and resolves with its URL once all listen; if one
 * exits first, stops the others and rejects. On SIGTERM/SIGINT stops them gracefully, then exits.
 */
export async function startCluster(config: Config, store: Store): Promise<{ url: string }> {
  const log = primaryLog(config.logLevel);
  // With Redis the workers share limits there; without it the primary holds every bucket and quota.
  const owner = config.redisUrl ? undefined : new LimitOwner(store);
  const primaryMetrics = createMetrics({ worker: 'primary' });
  const gatherer = new MetricsGatherer(primaryMetrics.registry);
  const started = new Map<number, number>();
  let crashes = 0;
  /** True from when every worker listens until the stop begins: only then is a dead worker replaced. */
  let replacingDead = false;
  let stopped: Promise<Flushed> | undefined;
  let dispatch: Dispatching | undefined;
  /** What the workers that stopped gracefully reported flushing. */
  const flushed: Flushed = { lookupsFolded: 0 };

  const fork = (): Worker => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
    worker.on('message', (message: unknown) => {
      if (isStoppedMessage(message)) {
        flushed.lookupsFolded += message.enrichStopped.lookupsFolded;
        return;
      }
      if (gatherer.receive(worker, message)) return;
      void owner?.receive(worker.id, message, (reply) => {
        if (worker.isConnected()) worker.send(reply);
      });
    });
    return worker;
  };

  /**
   * Signals every worker, kills those still running once their drain time is past, folds what a killed
   * one left in its journal, then closes up.
   */
  const stop = (signal: NodeJS.Signals) => {
    stopped ??= (async () => {
      replacingDead = false;
      const live = liveWorkers();
      const exited = live.map((worker) => once(worker, 'exit'));
      for (const worker of live) worker.process.kill(signal);
      const force = setTimeout(() => {
        for (const worker of live) worker.process.kill('SIGKILL');
      }, config.shutdownTimeoutMs + 5_000);
      await Promise.all(exited);
      clearTimeout(force);
      await dispatch?.close();
      await owner?.close();
      if (config.accounting !== false) {
        flushed.lookupsFolded += await new JournalFolder(store, config.journalDir).fold().catch((error) => {
          log('error', "folding the workers' journals failed: the next start folds them", {
            err: maskSecrets(String(error)),
          });
          return 0;
        });
      }
      await store.close();
      return flushed;
    })();
    return stopped;
  };

  onShutdownSignal((signal) => {
    log('info', `shutting down: stopping ${liveWorkers().length} workers`, { signal });
    stop('SIGTERM').then(
      (what) => {
        log('info', stoppedMessage(what, config.workers), what);
        process.exit(0);
      },
      (error: unknown) => {
        log('error', 'shutdown failed', { err: maskSecrets(String(error)) });
        process.exit(1);
      },
    );
  });

  cluster.on('exit', (worker, code, signal) => {
    owner?.release(worker.id);
    if (!replacingDead) return;
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    crashes = lived < HEALTHY_AFTER_MS ? crashes + 1 : 0;
    const delay = crashes === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 250 * 2 ** crashes);
    log('error', 'worker died; starting another', { worker: worker.id, code, signal, restartInMs: delay });
    setTimeout(() => {
      if (replacingDead) fork();
    }, delay).unref();
  });

  // Every worker reads the certificate again on SIGHUP: the primary passes the signal on, to the workers
  // serving (one still starting has no handler yet, and would die of it; it reads the files as it starts).
  if (config.tlsCert) {
    const listeningWorkers = new Set<number>();
    cluster.on('listening', (worker) => listeningWorkers.add(worker.id));
    cluster.on('exit', (worker) => listeningWorkers.delete(worker.id));
    process.on('SIGHUP', () => {
      for (const worker of liveWorkers()) if (listeningWorkers.has(worker.id)) worker.process.kill('SIGHUP');
    });
  }
  const listening = allListening(config.workers, config.tlsCert ? 'https' : 'http');
  for (let i = 0; i < config.workers; i++) fork();
  // The workers serve; the primary alone dispatches webhooks, so a delivery is never attempted twice.
  dispatch = startDispatch(config, store, countOutcomes(primaryMetrics), (error) =>
    log('error', 'webhook dispatch failed', { err: maskSecrets(String(error)) }),
  );
  try {
    const url = await listening;
    // A signal while the workers started has begun the stop: nothing may restart them now.
    replacingDead = stopped === undefined;
    return { url };
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
}
