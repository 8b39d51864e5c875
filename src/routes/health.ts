// The admin surface: liveness and readiness, no token needed (metrics.ts serves /metrics).
import type { FastifyInstance } from 'fastify';
import { toProblem } from '../errors.js';
import { sendProblem } from '../http/problem.js';
import { headers, publicResponses, responseRef } from '../openapi/components.js';
import type { HealthStore } from '../store/health.js';
import { StoreUnavailableError } from '../store/unavailable.js';

/** A 200 whose JSON body is `{ "status": <status> }`. */
const statusResponse = (description: string, status: string) => ({
  description,
  headers: headers('X-Request-Id'),
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { status: { type: 'string', enum: [status] } },
        required: ['status'],
      },
    },
  },
});

export function registerHealth(app: FastifyInstance, store: HealthStore) {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'liveness',
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        security: [],
        'x-responses': publicResponses(statusResponse('The process is up', 'ok')),
      },
    },
    async () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'readiness',
        summary: 'Readiness: the data store answers',
        tags: ['operations'],
        security: [],
        'x-responses': publicResponses(statusResponse('The data store answers', 'ready'), {
          503: responseRef('Unavailable'),
        }),
      },
    },
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
}
