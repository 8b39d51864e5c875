// enrich serve [--port N] [--host H] [--demo] [--workers N] [--tls-cert FILE --tls-key FILE]: the API on the configured store.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { ConfigError } from '../config-error.js';
import { readTls, tlsFiles } from '../http/tls.js';
import { describeStore, openStore } from '../store/open.js';
import { UsageError, withStore } from './options.js';

export function registerServe(program: Command) {
  withStore(program.command('serve'))
    .description('serve the API (default 127.0.0.1:8080; PORT and HOST too)')
    .option('--port <n>', 'port to listen on (default: $PORT, else 8080)')
    .option('--host <host>', 'address to listen on (default: $HOST, else 127.0.0.1)')
    .option('--demo', 'fill an empty store with a generated data set and a demo key first')
    .option('--workers <n>', 'server processes (default: $ENRICH_WORKERS, else one per core; 1: no cluster)')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (default: $ENRICH_TLS_CERT)')
    .option('--tls-key <file>', "the certificate's PEM private key (default: $ENRICH_TLS_KEY)")
    .action(async (opts) => {
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig({
          port: opts.port,
          host: opts.host,
          db: opts.db,
          workers: opts.workers,
          tlsCert: opts.tlsCert,
          tlsKey: opts.tlsKey,
        });
        // Checked once here, so that a bad file is one clear message rather than one per worker.
        const tls = tlsFiles(config);
        if (tls) readTls(tls);
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message);
        throw error;
      }
      // Loaded here so that other commands never pay for the HTTP stack's start-up.
      const { startServer } = await import('../server.js');
      const { isWorker, startCluster, startWorker } = await import('../cluster.js');
      const store = await openStore({
        ...config,
        turnSnapshots: true,
        searchThread: true,
        indexInBackground: true,
      });
      // A worker only serves: the primary loaded the demo set before forking, and says where to connect.
      if (isWorker()) return void (await startWorker(config, store));
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const demo = opts.demo ? await import('../demo.js') : undefined;
      const demoSet = await demo?.prepareDemo(store, config.databaseUrl ? undefined : config.dbPath, say);
      const clustered = config.workers > 1;
      // On its own, the server dispatches webhooks on a thread of their own (a cluster's primary does it).
      const server = clustered
        ? await startCluster(config, store)
        : await startServer(config, store, { dispatchThread: true });
      const workers = clustered ? ` (${config.workers} workers)` : '';
      say(`Enrich listening on ${server.url} over ${describeStore(config)}${workers}`);
      if (demo && demoSet)
        for (const line of demo.demoInstructions(demoSet, server.url, config.tlsCert)) say(line);
    });
}
