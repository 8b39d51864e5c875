// buildApp(deps): plugins, routes, error and 404 handlers. Never listens; server.ts does.

import { createServer } from 'node:http';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { openAccounting } from './accounting/open.js';
import { ProblemError } from './errors.js';
import { LookupPath } from './http/lookup-path.js';
import { sendProblem, toProblem } from './http/problem.js';
import { requestId } from './http/request-id.js';
import { MemoryQuotaCounter, type QuotaCounter } from './limits/quota.js';
import { MemoryRateLimiter, type RateLimiter } from './limits/rate-limit.js';
import { createMetrics, type Metrics } from './metrics.js';
import { registerCompany } from './routes/company.js';
import { registerHealth } from './routes/health.js';
import { registerPeople } from './routes/people.js';
import { registerUsage } from './routes/usage.js';
import { Problem } from './schemas/problem.js';
import type { Flushed } from './shutdown.js';
import type { StoreLocation } from './store/open.js';
import type { Store } from './store/store.js';

export interface AppDeps {
  store: Store;
  limiter?: RateLimiter;
  quota?: QuotaCounter;
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
  /** Told what closing the app flushed, once it has (a server's last log line says it). */
  onFlushed?: (flushed: Flushed) => void;
}

export const API_DESCRIPTION = `People and company enrichment. Every lookup needs \`Authorization: Bearer <token>\`.
Errors are \`application/problem+json\` with a stable \`code\`. Each key has a token-bucket rate limit
(\`RateLimit\`/\`RateLimit-Policy\` headers) and an optional monthly quota of matched lookups.`;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const limiter: RateLimiter = deps.limiter ?? new MemoryRateLimiter();
  const quota = deps.quota ?? new MemoryQuotaCounter(store);

  // Lookups are served before Fastify's router (LookupPath.serve): a synchronous path with no hook,
  // per-request logger or promise. Everything else, and lookups it leaves (while closing), goes on.
  let lookups: LookupPath | undefined;
  const app = Fastify({
    logger: deps.logger ?? false,
    // Fastify's own request lines carry the URL, and so the query: personal data (see accessLog).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestId(req.headers['x-request-id']),
    return503OnClosing: true,
    routerOptions: { maxParamLength: 2048 },
    serverFactory: (handler) =>
      createServer((req, res) => {
        if (!lookups?.serve(req, res)) handler(req, res);
      }),
  });

  const accounting =
    deps.accounting === false
      ? undefined
      : openAccounting(store, {
          dir: deps.journal?.dir,
          location: deps.journal?.location,
          retentionDays: deps.auditRetentionDays ?? 365,
          onError: (error) => app.log.error({ err: error }, 'accounting journal write or fold failed'),
        });
  lookups = new LookupPath({
    store,
    limiter,
    quota,
    metrics,
    accounting,
    log: app.log,
    accessLog: deps.accessLog ?? false,
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.config.lookup) return done(); // counted by the lookup path itself
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.http.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (deps.accessLog) {
      const line = { method: request.method, route, status: reply.statusCode, ms: reply.elapsedTime };
      request.log.info(line, 'request');
    }
    done();
  });
  app.addHook('preClose', (done) => {
    lookups?.close();
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500)
      request.log.error({ err: error, route: request.routeOptions.url }, 'request failed');
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      new ProblemError('not_found', `There is no ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );

  app.addSchema(Problem);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Enrich', version: '1', description: API_DESCRIPTION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      tags: [
        { name: 'lookups', description: 'Person and company lookups' },
        { name: 'usage', description: "The calling key's own usage" },
        { name: 'operations', description: 'Health, readiness, metrics' },
      ],
    },
  });
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json' } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  registerPeople(app, lookups);
  registerCompany(app, lookups);
  registerUsage(app, { store, limiter, accounting });
  registerHealth(app, store, metrics);

  app.addHook('onClose', async () => {
    // In-flight requests have finished: what they counted and audited is written before the store closes.
    const lookupsFolded = (await accounting?.close()) ?? 0;
    await quota.close();
    await limiter.close?.();
    deps.onFlushed?.({ lookupsFolded });
  });
  return app;
}
