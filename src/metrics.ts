// Prometheus metrics: requests and latency by route and status, lookups by outcome.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export type LookupOutcome = 'matched' | 'not_found' | 'ambiguous' | 'rejected';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  lookups: Counter<'entity' | 'outcome'>;
  /** Failed calls to the shared limit backend (Redis), by limit: `rate` or `quota`. */
  limitBackendErrors: Counter<'limit'>;
}

/** A fresh registry per app, so that tests and several apps in one process never share counters. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'enrich_' });
  return {
    registry,
    requests: new Counter({
      name: 'enrich_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'enrich_http_request_duration_seconds',
      help: 'HTTP request latency by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    lookups: new Counter({
      name: 'enrich_lookups_total',
      help: 'Lookups by entity and outcome',
      labelNames: ['entity', 'outcome'],
      registers: [registry],
    }),
    limitBackendErrors: new Counter({
      name: 'enrich_limit_backend_errors_total',
      help: 'Failed calls to the shared rate-limit and quota backend (Redis), by limit',
      labelNames: ['limit'],
      registers: [registry],
    }),
  };
}
