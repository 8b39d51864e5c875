// GET /metrics: Prometheus text of every metric; open, or behind the metrics token when one is set.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { metricsTokenCheck } from '../auth/metrics-token.js';
import { type ProblemError, toProblem } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { headers, publicResponses, responseRef } from '../openapi/components.js';
import type { MaybePromise } from '../store/maybe-promise.js';

/** What a refused token costs: charged to the client's address, and a 429 once it is over its limit. */
export type ChargeRefusal = (req: IncomingMessage, problem: ProblemError) => MaybePromise<ProblemError>;

const DESCRIPTION = `Open by default, for a scraper on the same host or network. With ENRICH_METRICS_TOKEN set,
it needs \`Authorization: Bearer <that token>\` (401 otherwise, and a 429 once the client's address is over its
limit of requests without a valid token); with ENRICH_METRICS_ADDRESS set, it is served on that address alone
(404 here).`;

/**
 * Registers /metrics; with a `token`, a scrape must carry it, and a refused one is charged as any request
 * without a valid token is (`charge`: the admission pipeline's turn, on the API's own address).
 */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  token?: string,
  charge?: ChargeRefusal,
) {
  const check = token === undefined ? undefined : metricsTokenCheck(token);
  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: DESCRIPTION,
        tags: ['operations'],
        security: [],
        'x-responses': publicResponses(
          {
            description: 'Every metric, in the Prometheus text format',
            headers: headers('X-Request-Id'),
            content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
          },
          { 401: responseRef('Unauthorized'), 429: responseRef('RateLimited') },
        ),
      },
    },
    async (request, reply) => {
      try {
        check?.(request.headers.authorization);
      } catch (error) {
        throw charge ? await charge(request.raw, toProblem(error)) : error;
      }
      return reply.type(metrics.registry.contentType).send(await metrics.scrape());
    },
  );
}
