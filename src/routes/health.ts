// The admin surface: liveness and readiness, no token needed (metrics.ts serves /metrics).
import type { FastifyInstance } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { toProblem } from '../errors.js';
import { sendProblem } from '../http/problem.js';
import { headers, publicResponses, responseRef } from '../openapi/components.js';
import { readiness, type Standing } from '../readiness.js';
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

/**
 * The 200 of /readyz: `ready`, or `degraded` with its reasons while the service answers without a part
 * (Redis unreachable and ENRICH_REDIS_FAILURE=open: each server limits keys to its share; PostgreSQL
 * unreachable with a local index in service: lookups answer from it, writes fail).
 */
const readyResponse = {
  description: 'The data store answers; `degraded` names what works only in part',
  headers: headers('X-Request-Id'),
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['ready', 'degraded'] },
          reasons: { type: 'array', items: { type: 'string' } },
        },
        required: ['status'],
      },
    },
  },
};

export function registerHealth(
  app: FastifyInstance,
  store: HealthStore,
  accounting?: Accounting | undefined,
  standing: Standing = {},
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
        'x-responses': publicResponses(readyResponse, {
          503: responseRef('Unavailable'),
        }),
      },
    },
    async (request, reply) => {
      const { problem, degraded: reasons } = await readiness(store, accounting, standing);
      if (problem === undefined) {
        return reasons.length === 0 ? { status: 'ready' } : { status: 'degraded', reasons };
      }
      // A journal that cannot be written was logged once, when it began; a store that is gone is told here.
      if (problem instanceof StoreUnavailableError)
        request.log.warn({ err: problem }, 'readiness check failed');
      return sendProblem(request, reply, toProblem(problem));
    },
  );
}
