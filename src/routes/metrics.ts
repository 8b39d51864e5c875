// GET /metrics: Prometheus text of every metric; open, or behind the metrics token when one is set.
import type { FastifyInstance } from 'fastify';
import { metricsTokenCheck } from '../auth/metrics-token.js';
import type { Metrics } from '../metrics.js';
import { headers, publicResponses, responseRef } from '../openapi/components.js';

const DESCRIPTION = `Open by default, for a scraper on the same host or network. With ENRICH_METRICS_TOKEN set,
it needs \`Authorization: Bearer <that token>\` (401 otherwise); with ENRICH_METRICS_ADDRESS set, it is served
on that address alone (404 here).`;

/** Registers /metrics; with a `token`, a scrape must carry it. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token?: string) {
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
          { 401: responseRef('Unauthorized') },
        ),
      },
    },
    async (request, reply) => {
      check?.(request.headers.authorization);
      return reply.type(metrics.registry.contentType).send(await metrics.scrape());
    },
  );
}
