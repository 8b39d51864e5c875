// buildMetricsApp(deps): /metrics alone, for the address of its own that ENRICH_METRICS_ADDRESS names — a
// scraper on a private network while the API's port faces clients. Never listens; server.ts does.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ProblemError, toProblem } from './errors.js';
import { registerCompression } from './http/compression.js';
import { sendProblem } from './http/problem.js';
import { requestId } from './http/request-id.js';
import type { Metrics } from './metrics.js';
import { registerMetrics } from './routes/metrics.js';

export interface MetricsAppDeps {
  metrics: Metrics;
  /** The bearer token a scrape must carry; open when omitted. */
  token?: string | undefined;
  /** Where a failed scrape is logged (the API's logger); nowhere when omitted. */
  log?: FastifyBaseLogger;
  /** A request must all arrive within this, ms; 0 or omitted: no bound. */
  requestTimeoutMs?: number;
}

export async function buildMetricsApp(deps: MetricsAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    genReqId: (req) => requestId(req.headers['x-request-id']),
    requestTimeout: deps.requestTimeoutMs ?? 0,
    // Errors before routing are problems too, quoting nothing of the request.
    frameworkErrors: (_error, request, reply) =>
      sendProblem(request, reply, new ProblemError('invalid_parameter', 'The request could not be read.')),
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) deps.log?.error({ err: error, reqId: request.id }, 'metrics scrape failed');
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      new ProblemError(
        'not_found',
        `There is no ${request.method} ${request.url.split('?')[0]}: this address serves /metrics.`,
      ),
    ),
  );
  await registerCompression(app);
  registerMetrics(app, deps.metrics, deps.token);
  return app;
}
