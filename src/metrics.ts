// Prometheus metrics: requests and latency by route and status, lookups by outcome.
import { Counter, collectDefaultMetrics, type Metric, type MetricValueWithName, Registry } from 'prom-client';

type MetricValue = MetricValueWithName<string>;

export type LookupOutcome = 'matched' | 'not_found' | 'ambiguous' | 'rejected';

/** Upper bounds, in seconds, of the request latency histogram's buckets. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1] as const;

type HttpLabels = { method: string; route: string; status: number };

interface HttpSeries {
  labels: HttpLabels;
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last slot is +Inf. */
  buckets: number[];
}

/**
 * Requests and their latency per (method, route, status), counted in plain numbers on the request path
 * and turned into Prometheus series only when /metrics is scraped: prom-client's own observe() hashes
 * and validates its labels on every call, a cost every request would pay.
 */
export class HttpTally {
  private readonly series = new Map<string, HttpSeries>();

  record(method: string, route: string, status: number, seconds: number): void {
    const id = `${method} ${status} ${route}`;
    let s = this.series.get(id);
    if (s === undefined) {
      s = {
        labels: { method, route, status },
        count: 0,
        sum: 0,
        buckets: Array(LATENCY_BUCKETS.length + 1).fill(0),
      };
      this.series.set(id, s);
    }
    s.count++;
    s.sum += seconds;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]!) b++;
    s.buckets[b]!++;
  }

  /** The requests counter's values, as prom-client's registry renders them. */
  requestValues(): MetricValue[] {
    return [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count }));
  }

  /** The latency histogram's bucket, sum and count values, as prom-client's registry renders them. */
  durationValues(name: string): MetricValue[] {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      s.buckets.forEach((n, i) => {
        cumulative += n;
        const le = i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i]! : '+Inf';
        values.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${name}_count` });
    }
    return values;
  }
}

/** Lookups per (entity, outcome), counted in plain numbers like HttpTally. */
export class LookupTally {
  private readonly counts = new Map<string, { labels: { entity: string; outcome: string }; value: number }>();

  /** Counts `n` lookups (the items of a bulk, say) of one outcome. */
  inc(entity: string, outcome: LookupOutcome, n = 1): void {
    const id = `${entity} ${outcome}`;
    const known = this.counts.get(id);
    if (known) known.value += n;
    else this.counts.set(id, { labels: { entity, outcome }, value: n });
  }

  values(): MetricValue[] {
    return [...this.counts.values()].map(({ labels, value }) => ({ labels: { ...labels }, value }));
  }
}

/** A metric whose values are computed at scrape time, registered beside prom-client's own. */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Metric);
}

export interface Metrics {
  registry: Registry;
  /** The text a scrape answers: this registry's, or (in a cluster worker) every worker's added up. */
  scrape(): Promise<string>;
  /** Requests and latency by method, route and status. */
  http: HttpTally;
  /** Lookups by entity and outcome. */
  lookups: LookupTally;
  /** Failed calls to the shared limit backend (Redis), by limit: `rate` or `quota`. */
  limitBackendErrors: Counter<'limit'>;
}

export interface MetricsOptions {
  /** A cluster's process: its process metrics are labelled `worker`, and scrapes cover the cluster. */
  worker?: string;
  /** Gathers the whole cluster's metrics (a cluster worker). */
  scrapeCluster?: () => Promise<string>;
}

/** A fresh registry per app, so that tests and several apps in one process never share counters. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const labels = options.worker === undefined ? {} : { worker: options.worker };
  collectDefaultMetrics({ register: registry, prefix: 'enrich_', labels });
  const http = new HttpTally();
  register(
    registry,
    'enrich_http_requests_total',
    'HTTP requests by method, route and status',
    'counter',
    () => http.requestValues(),
  );
  const duration = 'enrich_http_request_duration_seconds';
  register(registry, duration, 'HTTP request latency by method, route and status', 'histogram', () =>
    http.durationValues(duration),
  );
  const lookups = new LookupTally();
  register(registry, 'enrich_lookups_total', 'Lookups by entity and outcome', 'counter', () =>
    lookups.values(),
  );
  return {
    registry,
    scrape: options.scrapeCluster ?? (() => registry.metrics()),
    http,
    lookups,
    limitBackendErrors: new Counter({
      name: 'enrich_limit_backend_errors_total',
      help: 'Failed calls to the shared rate-limit and quota backend (Redis), by limit',
      labelNames: ['limit'],
      registers: [registry],
    }),
  };
}
