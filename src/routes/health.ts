// The admin surface: liveness, readiness and Prometheus metrics; no token needed.
import type { FastifyInstance } from 'fastify';
import { sendProblem, toProblem } from '../http/problem.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';

export function registerHealth(app: FastifyInstance, store: Store, metrics: Metrics) {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness: the process is up' } },
    async () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'Readiness: the data store answers' } },
    async (request, reply) => {
      try {
        await store.ping();
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return sendProblem(request, reply, toProblem(new StoreUnavailableError({ cause: error })));
      }
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics' } },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.scrape()),
  );
}
