// buildApp(deps): plugins, routes, error and 404 handlers. Never listens; server.ts does.

import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { MinuteCounts } from './accounting/minute-counts.js';
import { openAccounting } from './accounting/open.js';
import { quotaStanding } from './accounting/usage-report.js';
import { ConsoleSessions } from './auth/sessions.js';
import { ProblemError, toProblem } from './errors.js';
import { Admission } from './http/admission.js';
import { AllowedMethods } from './http/allowed-methods.js';
import { BODY_LIMIT } from './http/body.js';
import { BulkPath } from './http/bulk-path.js';
import { clientAddressOf, compileTrust, type TrustProxy } from './http/client-address.js';
import { answerClientError } from './http/client-error.js';
import { registerCompression } from './http/compression.js';
import { type CorsOrigins, corsPolicy, registerCors } from './http/cors.js';
import { registerGuards } from './http/guard.js';
import { registerJsonBodies } from './http/json-body.js';
import { decorateKeyedRoute } from './http/keyed-route.js';
import { LookupPath } from './http/lookup-path.js';
import { frameworkProblem, sendProblem } from './http/problem.js';
import { TurnRelease } from './http/release.js';
import { watchRequestBody } from './http/request-deadline.js';
import { requestId } from './http/request-id.js';
import { RequestLog } from './http/request-log.js';
import { MemoryQuotaCounter, type QuotaCounter } from './limits/quota.js';
import { MemoryRateLimiter, type RateLimiter } from './limits/rate-limit.js';
import { UnauthenticatedLimit } from './limits/unauthenticated.js';
import { ListFiles } from './lists/files.js';
import { ListWorker } from './lists/worker.js';
import { createMetrics, type Metrics, observeService } from './metrics.js';
import { registerOpenapi } from './openapi/document.js';
import { localIndexStanding, notReady, type Standing } from './readiness.js';
import { registerAdmin } from './routes/admin.js';
import { ADMIN_ROUTE_SCHEMAS } from './routes/admin-docs.js';
import { registerBulk } from './routes/bulk.js';
import { registerChanges } from './routes/changes.js';
import { registerCompany } from './routes/company.js';
import { registerConsole } from './routes/console.js';
import { registerConsoleSession } from './routes/console-session.js';
import { registerDocs } from './routes/docs.js';
import { registerHealth } from './routes/health.js';
import { registerLists } from './routes/lists.js';
import { registerMetrics } from './routes/metrics.js';
import { registerPeople } from './routes/people.js';
import { registerSearch } from './routes/search.js';
import { registerUsage } from './routes/usage.js';
import { registerWatchlists } from './routes/watchlists.js';
import { registerWebhooks } from './routes/webhooks.js';
import type { Flushed } from './shutdown.js';
import type { ChangeStore } from './store/changes.js';
import type { StoreLocation } from './store/open.js';
import type { Store } from './store/store.js';
import { DEFAULT_RETRY_SCHEDULE } from './vocabulary/webhook-retries.js';
import { webhookPoster } from './webhooks/post.js';

export interface AppDeps {
  store: Store;
  /** The change log the feed reads; default: the store's own. */
  changes?: ChangeStore;
  limiter?: RateLimiter;
  quota?: QuotaCounter;
  /** Why the limits are not shared now (Redis unreachable), for /readyz. */
  limitsStanding?: Standing['limits'];
  metrics?: Metrics;
  /** Audit entries older than this are pruned at start and daily. Default 365. */
  auditRetentionDays?: number;
  /** Fastify logger options; off when omitted (tests). */
  logger?: FastifyServerOptions['logger'];
  /** One log line per request: method, route, status, duration, request id. Never the query. */
  accessLog?: boolean;
  /**
   * Audit and meter keyed lookups through the journal (default true). False records nothing — no audit
   * entry, no usage — and exists only so that the benchmark can measure what accounting costs; quotas
   * are enforced either way.
   */
  accounting?: boolean;
  /**
   * The journal's directory, and the store a folding thread opens. Default: a temporary directory,
   * folded on this thread (tests, in-memory stores).
   */
  journal?: { dir: string; location?: StoreLocation };
  /** Origins allowed to call from a browser (CORS); none when omitted. */
  corsOrigins?: CorsOrigins;
  /** Told what closing the app flushed, once it has (a server's last log line says it). */
  onFlushed?: (flushed: Flushed) => void;
  /** Requests per second of one client address without a valid token (default 20; 0: no limit). */
  unauthenticatedRate?: number;
  /** The proxies whose X-Forwarded-For names the client; none when omitted. */
  trustProxy?: TrustProxy | undefined;
  /** The HTTP server's options (timeouts, set by server.ts), and a certificate and key to serve HTTPS. */
  server?: ServerOptions & { tls?: { cert: Buffer; key: Buffer } | undefined };
  /** A request's body must all arrive within this (admitted bulk streams excepted); 0 or omitted: no bound. */
  requestTimeoutMs?: number;
  /** A bulk stream with nothing read or written for this long is ended and closed (default two minutes). */
  streamIdleTimeoutMs?: number;
  /** The bearer token a scrape of /metrics must carry; open when omitted. */
  metricsToken?: string | undefined;
  /** /metrics is served on an address of its own (buildMetricsApp): not here. */
  metricsElsewhere?: boolean;
  /** The rate of a key the admin API creates without one (ENRICH_DEFAULT_RATE); default 50. */
  defaultRate?: number | undefined;
  /** Webhooks: the retry schedule (seconds), whether private addresses may be reached, the dispatcher's wake. */
  /**
   * List jobs: the directory of their files (ENRICH_LISTS_DIR; default a temporary one, removed on close:
   * tests), and the worker's lease and polling (tests shorten them).
   */
  lists?: { dir?: string; leaseMs?: number; pollMs?: number };
  webhooks?: {
    retrySchedule?: readonly number[];
    allowPrivate?: boolean;
    wake?: () => void;
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const limiter: RateLimiter = deps.limiter ?? new MemoryRateLimiter();
  const quota = deps.quota ?? new MemoryQuotaCounter(store);
  const cors = deps.corsOrigins ? corsPolicy(deps.corsOrigins) : undefined;
  const unauthenticated = new UnauthenticatedLimit(
    limiter,
    deps.unauthenticatedRate ?? 20,
    clientAddressOf(deps.trustProxy),
  );
  const { tls, ...serverOptions } = deps.server ?? {};
  const requestTimeoutMs = deps.requestTimeoutMs ?? 0;

  // Lookups are served before Fastify's router (LookupPath.serve): a synchronous path with no hook,
  // per-request logger or promise. Everything else, and lookups it leaves (while closing), goes on.
  let lookups: LookupPath | undefined;
  const app = Fastify({
    logger: deps.logger ?? false,
    // Fastify's own request lines carry the URL, and so the query: personal data (see accessLog).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestId(req.headers['x-request-id']),
    return503OnClosing: true,
    // Fastify's own answers to a request it cannot route (a malformed URL, say) are problems too; their
    // messages quote the URL, and so the query: personal data, not repeated.
    frameworkErrors: (error, request, reply) =>
      sendProblem(
        request,
        reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff'),
        frameworkProblem(error),
      ),
    // What Node's parser refuses (431, 400, 408) is a problem too, written on the socket.
    clientErrorHandler: answerClientError,
    routerOptions: { maxParamLength: 2048 },
    // Routes that take a body take a small one unless they set their own limit.
    bodyLimit: BODY_LIMIT,
    // Over TLS, Fastify's own log line and listen() name the address https://: the server is ours (below).
    ...(tls ? { https: true as unknown as null } : {}),
    // request.ip, as the lookup path and the per-address limit read it.
    ...(deps.trustProxy === undefined ? {} : { trustProxy: compileTrust(deps.trustProxy) }),
    serverFactory: (handler) => {
      const listener = (req: IncomingMessage, res: ServerResponse) => {
        watchRequestBody(req, res, requestTimeoutMs);
        if (!lookups?.serve(req, res)) handler(req, res);
      };
      if (!tls) return createServer(serverOptions, listener);
      // An https.Server is an http.Server to everything Fastify and the lookup path use of it.
      return createSecureServer({ ...serverOptions, ...tls }, listener) as unknown as Server;
    },
  });

  const accounting =
    deps.accounting === false
      ? undefined
      : openAccounting(store, {
          dir: deps.journal?.dir,
          location: deps.journal?.location,
          retentionDays: deps.auditRetentionDays ?? 365,
          onError: (error) => app.log.error({ err: error }, 'accounting journal write or fold failed'),
          log: app.log,
        });
  const minutes =
    accounting &&
    new MinuteCounts(store, (error) =>
      app.log.error({ err: error }, 'per-minute counts could not be written'),
    );
  const turns = new TurnRelease(accounting);
  const requests = new RequestLog(metrics, app.log, deps.accessLog ?? false);
  // Every keyed request's steps, the fast lookup path's included.
  const sessions = new ConsoleSessions(store);
  const admission = new Admission({
    keys: store,
    limiter,
    quota,
    unauthenticated,
    accounting,
    minutes,
    sessions,
  });
  lookups = new LookupPath({ store, admission, metrics, requests, cors, turns });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.config.lookup) return done(); // counted by the lookup path itself
    const route = request.routeOptions.url ?? 'unmatched';
    requests.served(request.method, route, reply.statusCode, reply.elapsedTime, request.id);
    done();
  });
  const bulk = new BulkPath({
    store,
    admission,
    limiter,
    quota,
    metrics,
    turns,
    requests,
    streamIdleMs: deps.streamIdleTimeoutMs ?? 120_000,
  });
  app.addHook('preClose', (done) => {
    lookups?.close();
    bulk.close();
    done();
  });

  // Learns every route's methods, for the 405s of the not-found handler and the guard.
  const allowed = new AllowedMethods();
  allowed.watch(app);
  registerGuards(app, admission, allowed);
  registerJsonBodies(app);
  decorateKeyedRoute(app, admission, requests);
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) requests.failed(error, request.routeOptions.url, request.id);
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const problem =
      allowed.refusal(request.method, path) ??
      new ProblemError('not_found', `There is no ${request.method} ${path}.`);
    return sendProblem(request, reply, problem);
  });

  // Before any route: compression attaches to routes as they are declared.
  await registerCompression(app);
  if (cors) await registerCors(app, cors);

  await registerOpenapi(app, ADMIN_ROUTE_SCHEMAS);

  registerPeople(app, lookups);
  registerCompany(app, lookups);
  registerBulk(app, bulk);
  registerUsage(app, { store, accounting });
  registerAdmin(app, { store, accounting, minutes, defaultRate: deps.defaultRate });
  registerSearch(app, { store, quota });
  registerChanges(app, { changes: deps.changes ?? store, watchlists: store, feed: metrics.feed });
  registerWatchlists(app, store);
  const poster = webhookPoster({ allowPrivate: deps.webhooks?.allowPrivate ?? false });
  registerWebhooks(app, {
    delivering: { store, poster, schedule: deps.webhooks?.retrySchedule ?? DEFAULT_RETRY_SCHEDULE },
    rules: {
      allowPrivate: deps.webhooks?.allowPrivate ?? false,
      watchlistOwned: async (keyId, id) => (await store.getWatchlist(keyId, id)) !== undefined,
    },
    logEnd: async () => (await store.changeBounds()).last,
    wake: deps.webhooks?.wake,
  });
  const listsDir = deps.lists?.dir ?? mkdtempSync(join(tmpdir(), 'enrich-lists-'));
  const listFiles = new ListFiles(listsDir);
  const listWorker = new ListWorker({
    store,
    files: listFiles,
    limiter,
    quota,
    minutes,
    leaseMs: deps.lists?.leaseMs,
    pollMs: deps.lists?.pollMs,
    onError: (error) => app.log.error({ err: error }, 'a list job failed'),
  });
  registerLists(app, { store, files: listFiles, wake: () => listWorker.wake() });
  app.addHook('onReady', (done) => {
    listWorker.start();
    done();
  });
  const standing: Standing = {
    limits: deps.limitsStanding,
    store: store.localStatus && ((pingFailed?: unknown) => localIndexStanding(store, pingFailed)),
  };
  registerHealth(app, store, accounting, standing);
  observeService(metrics, {
    accounting,
    ready: async () => (await notReady(store, accounting, standing)) === undefined,
    quotas: () => quotaStanding(store),
    changesAppended: () => store.changesAppended(),
    webhookBacklog: () => store.deliveryBacklog(),
    localIndex: store.localStatus && (() => store.localStatus?.()),
    servingIndex: store.indexServing && (() => store.indexServing?.()),
  });
  if (!deps.metricsElsewhere) {
    registerMetrics(app, metrics, deps.metricsToken, (req, problem) => admission.turn(req, problem));
  }
  registerDocs(app);
  registerConsoleSession(app, { store, admission, sessions });
  registerConsole(app);

  // As closing begins: the job under way goes back to the queue, its last chunk committed, before anything
  // it uses closes.
  app.addHook('preClose', async () => {
    await listWorker.close();
  });
  app.addHook('onClose', async () => {
    if (deps.lists?.dir === undefined) rmSync(listsDir, { recursive: true, force: true });
    // In-flight requests have finished: what they counted and audited is written before the store closes.
    const lookupsFolded = (await accounting?.close()) ?? 0;
    await minutes?.close();
    await quota.close();
    await limiter.close?.();
    poster.close();
    deps.onFlushed?.({ lookupsFolded });
  });
  return app;
}
