// buildApp(deps): plugins, routes, error and 404 handlers. Never listens; server.ts does.
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { AuditLog } from './accounting/audit-log.js';
import { UsageMeter } from './accounting/usage-meter.js';
import { ProblemError } from './errors.js';
import { sendProblem, toProblem } from './http/problem.js';
import { MemoryQuotaCounter, type QuotaCounter } from './limits/quota.js';
import { MemoryRateLimiter, type RateLimiter } from './limits/rate-limit.js';
import { createMetrics, type Metrics } from './metrics.js';
import { registerCompany } from './routes/company.js';
import { registerHealth } from './routes/health.js';
import { registerPeople } from './routes/people.js';
import { registerUsage } from './routes/usage.js';
import { Problem } from './schemas/problem.js';
import type { Store } from './store/store.js';

export interface AppDeps {
  store: Store;
  limiter?: RateLimiter;
  quota?: QuotaCounter;
  metrics?: Metrics;
  /** Usage per key, day and operation; one flushing to `store` every second when omitted. */
  meter?: UsageMeter;
  /** The audit log's writer; one over `store`, pruning by `auditRetentionDays`, when omitted. */
  audit?: AuditLog;
  /** Audit entries older than this are pruned at start and daily. Default 365. */
  auditRetentionDays?: number;
  /** Fastify logger options; off when omitted (tests). */
  logger?: FastifyServerOptions['logger'];
  /** One log line per request: method, route, status, duration, request id. Never the query. */
  accessLog?: boolean;
  /**
   * Audit and meter lookups (default true). False records neither — no audit entry, no usage — and
   * exists only so that the benchmark can measure what they cost; quotas are enforced either way.
   */
  accounting?: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const instance = Math.random().toString(36).slice(2, 8);
let sequence = 0;

/** A caller's X-Request-Id when it is safe to echo, else a fresh, cheap, unique one. */
function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header)
    ? header
    : `${instance}-${(++sequence).toString(36)}`;
}

export const API_DESCRIPTION = `People and company enrichment. Every lookup needs \`Authorization: Bearer <token>\`.
Errors are \`application/problem+json\` with a stable \`code\`. Each key has a token-bucket rate limit
(\`RateLimit\`/\`RateLimit-Policy\` headers) and an optional monthly quota of matched lookups.`;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const limiter: RateLimiter = deps.limiter ?? new MemoryRateLimiter();
  const quota = deps.quota ?? new MemoryQuotaCounter(store);
  const meter = deps.meter ?? new UsageMeter(store);

  const app = Fastify({
    logger: deps.logger ?? false,
    // Fastify's own request lines carry the URL, and so the query: personal data (see accessLog).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestId(req.headers['x-request-id']),
    return503OnClosing: true,
    routerOptions: { maxParamLength: 2048 },
  });

  const audit =
    deps.audit ??
    new AuditLog(store, {
      retentionDays: deps.auditRetentionDays ?? 365,
      onError: (error) => app.log.error({ err: error }, 'audit log write or prune failed'),
    });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.http.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (deps.accessLog) {
      const line = { method: request.method, route, status: reply.statusCode, ms: reply.elapsedTime };
      request.log.info(line, 'request');
    }
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

  const lookupDeps = { store, limiter, quota, metrics, meter, audit, accounting: deps.accounting ?? true };
  registerPeople(app, lookupDeps);
  registerCompany(app, lookupDeps);
  registerUsage(app, { store, limiter, meter });
  registerHealth(app, store, metrics);

  app.addHook('onClose', async () => {
    // In-flight requests have finished: what they counted and audited is written before the store closes.
    await Promise.all([audit.close(), meter.close()]);
    await quota.close();
    await limiter.close?.();
  });
  return app;
}
