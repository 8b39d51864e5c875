// The admin surface: liveness and readiness, no token needed (metrics.ts serves /metrics).
import type { FastifyInstance } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { toProblem } from '../errors.js';
import { sendProblem } from '../http/problem.js';
import { headers, publicResponses, responseRef } from '../openapi/components.js';
import { degraded, notReady } from '../readiness.js';
import type { HealthStore } from '../store/health.js';
import type { Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';

/** A 200 whose JSON body is `{ "status": <status> }`, with a `reason` when there may be one. */
const statusResponse = (description: string, ...statuses: string[]) => ({
  description,
  headers: headers('X-Request-Id'),
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: statuses },
          ...(statuses.length > 1
            ? { reason: { type: 'string', description: 'Why the service answers only in part.' } }
            : {}),
        },
        required: ['status'],
      },
    },
  },
});

export function registerHealth(
  app: FastifyInstance,
  store: HealthStore & Pick<Store, 'localStatus'>,
  accounting?: Accounting | undefined,
) {
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
        description:
          '`ready`, or `degraded` with a `reason` while lookups answer but not everything does (on PostgreSQL ' +
          'with a local index: the database unreachable, lookups answering from the index, writes failing).',
        'x-responses': publicResponses(statusResponse('The data store answers', 'ready', 'degraded'), {
          503: responseRef('Unavailable'),
        }),
      },
    },
    async (request, reply) => {
      const problem = await notReady(store, accounting);
      if (problem === undefined) {
        const reason = degraded(store);
        return reason === undefined ? { status: 'ready' } : { status: 'degraded', reason };
      }
      // A journal that cannot be written was logged once, when it began; a store that is gone is told here.
      if (problem instanceof StoreUnavailableError)
        request.log.warn({ err: problem }, 'readiness check failed');
      return sendProblem(request, reply, toProblem(problem));
    },
  );
}
