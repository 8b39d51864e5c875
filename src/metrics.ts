// Prometheus metrics: requests and latency by route and status, lookups by outcome, and the state an operator
// is alerted on (readiness, the accounting journal, quotas nearly spent; docs/prometheus/alerts.yml).

import {
  type Aggregator,
  Counter,
  collectDefaultMetrics,
  type Metric,
  type MetricValueWithName,
  Registry,
} from 'prom-client';

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

/**
 * What the feed (GET /v1/changes) served: events, and how long after its commit the newest event of the last
 * page that had any was served — near 0 while readers keep up, growing while one reads far behind.
 */
export class FeedTally {
  events = 0;
  lagSeconds = 0;

  /** Counts a page's events; `newestAt` is the commit time of its last one. */
  served(events: number, newestAt: string | undefined, now = Date.now()): void {
    if (events === 0 || newestAt === undefined) return;
    this.events += events;
    this.lagSeconds = Math.max(0, (now - Date.parse(newestAt)) / 1000);
  }
}

/**
 * A metric whose values are computed at scrape time, registered beside prom-client's own. `aggregator` is how
 * a cluster's workers' values are combined: summed, or the most (a lag) or the least (readiness) of them.
 */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram' | 'gauge',
  values: () => MetricValue[] | Promise<MetricValue[]>,
  aggregator: Aggregator = 'sum',
): void {
  const metric = {
    name,
    help,
    type,
    aggregator,
    get: async () => ({ name, help, type, aggregator, values: await values() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Metric);
}

/** A key's monthly quota and the matched lookups it has used of it this month. */
export interface QuotaStanding {
  key: string;
  quota: number;
  used: number;
}

/** What the gauges read of the accounting journal (src/accounting/): whether it can be written, its fold lag. */
export interface JournalState {
  readonly health?: { readonly failing: boolean; readonly failures: number } | undefined;
  foldLagSeconds?(): number;
}

/** What the service's state gauges read at scrape time. */
export interface ServiceState {
  /** True when /readyz would answer 200. */
  ready(): Promise<boolean>;
  /** Audit and metering: the journal's health and fold lag; none when accounting is off. */
  accounting: JournalState | undefined;
  /** Every active key with a quota. */
  quotas(): Promise<QuotaStanding[]>;
  /** The change-log events this process appended, by type (src/store/changes.ts). */
  changesAppended?(): ReadonlyMap<string, number>;
  /** Webhook deliveries owed to enabled endpoints, and when the oldest was made (ISO; null: none). */
  webhookBacklog?(): Promise<{ pending: number; oldest: string | null }>;
  /** SQLite's serving index: true when every entity's lookups read it, false while one is built (undefined: none). */
  servingIndex?(): boolean | undefined;
  /** A PostgreSQL server's local index: its follower's state (src/store/postgres/follow.ts). */
  localIndex?(): { serving: boolean; problem: string | undefined; appliedAt: string | undefined } | undefined;
}

/**
 * Registers the gauges an operator is alerted on: readiness, the accounting journal (writable? folded how
 * long ago?) and each key's quota and use. Values are read when /metrics is scraped, never on a request.
 */
export function observeService(metrics: Metrics, state: ServiceState): void {
  const { registry } = metrics;
  const one = (value: number): MetricValue[] => [{ labels: {}, value }];
  register(
    registry,
    'enrich_ready',
    '1 when /readyz answers 200: the store answers and the accounting journal can be written',
    'gauge',
    async () => one((await state.ready()) ? 1 : 0),
    'min',
  );
  const serving = state.servingIndex;
  if (serving?.() !== undefined) {
    register(
      registry,
      'enrich_serving_index_serving',
      '1 while lookups read the serving index; 0 while it is built in the background and they read SQLite',
      'gauge',
      () => one(serving() ? 1 : 0),
      'min',
    );
  }
  const local = state.localIndex;
  if (local?.() !== undefined) {
    register(
      registry,
      'enrich_local_index_serving',
      '1 while lookups read the local index (built and current); 0 while it is built and they read PostgreSQL',
      'gauge',
      () => one(local()?.serving ? 1 : 0),
      'min',
    );
    register(
      registry,
      'enrich_local_index_following',
      '1 while the local index follows PostgreSQL; 0 while it cannot reach it (lookups answer from the index)',
      'gauge',
      () => one(local()?.problem === undefined ? 1 : 0),
      'min',
    );
    register(
      registry,
      'enrich_local_index_applied_timestamp_seconds',
      'Commit time of the last change the local index applied (Unix seconds; 0 before the first)',
      'gauge',
      () => one(Date.parse(local()?.appliedAt ?? '') / 1000 || 0),
      'min',
    );
  }
  const { accounting } = state;
  if (accounting !== undefined) {
    register(
      registry,
      'enrich_accounting_journal_failing',
      'Processes whose accounting journal cannot be written (a full disk): their keyed requests get 503',
      'gauge',
      () => one(accounting.health?.failing ? 1 : 0),
    );
    register(
      registry,
      'enrich_accounting_journal_write_failures_total',
      'Commits of the accounting journal that failed',
      'counter',
      () => one(accounting.health?.failures ?? 0),
    );
    register(
      registry,
      'enrich_accounting_fold_lag_seconds',
      'Seconds since the last complete fold of the accounting journal into the store began: no lookup has waited longer to reach usage and audit reports',
      'gauge',
      () => one(accounting.foldLagSeconds?.() ?? 0),
      'max',
    );
  }
  const { changesAppended } = state;
  if (changesAppended !== undefined) {
    register(
      registry,
      'enrich_change_events_total',
      'Change events appended to the change log by this process, by type',
      'counter',
      () => [...changesAppended()].map(([type, value]) => ({ labels: { type }, value })),
    );
  }
  const { webhookBacklog } = state;
  if (webhookBacklog !== undefined) {
    register(
      registry,
      'enrich_webhook_queue_depth',
      'Webhook deliveries pending (first attempts and retries) to enabled endpoints',
      'gauge',
      async () => one((await webhookBacklog()).pending),
      'max',
    );
    register(
      registry,
      'enrich_webhook_oldest_pending_seconds',
      'Age of the oldest webhook delivery still pending to an enabled endpoint (0: none)',
      'gauge',
      async () => {
        const { oldest } = await webhookBacklog();
        return one(oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
      },
      'max',
    );
  }
  const byKey = (pick: (q: QuotaStanding) => number) => async () =>
    (await state.quotas()).map((q) => ({ labels: { key: q.key }, value: pick(q) }));
  register(
    registry,
    'enrich_key_quota',
    'Matched lookups a month a key may make, per key with a quota',
    'gauge',
    byKey((q) => q.quota),
    'max',
  );
  register(
    registry,
    'enrich_key_quota_used',
    'Matched lookups a key has made this month (UTC), per key with a quota, as folded into the store',
    'gauge',
    byKey((q) => q.used),
    'max',
  );
}

export interface Metrics {
  registry: Registry;
  /** The text a scrape answers: this registry's, or (in a cluster worker) every worker's added up. */
  scrape(): Promise<string>;
  /** Requests and latency by method, route and status. */
  http: HttpTally;
  /** Lookups by entity and outcome. */
  lookups: LookupTally;
  /** Events the feed served, and its lag. */
  feed: FeedTally;
  /** Failed calls to the shared limit backend (Redis), by limit: `rate` or `quota`. */
  limitBackendErrors: Counter<'limit'>;
  /** Webhook delivery attempts by outcome: `delivered`, `retrying` or `failed`. */
  webhookDeliveries: Counter<'outcome'>;
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
  const feed = new FeedTally();
  register(registry, 'enrich_changes_served_total', 'Change events the feed served', 'counter', () => [
    { labels: {}, value: feed.events },
  ]);
  register(
    registry,
    'enrich_changes_feed_lag_seconds',
    'Seconds from the commit of the newest event the feed last served to the moment it served it',
    'gauge',
    () => [{ labels: {}, value: feed.lagSeconds }],
    'max',
  );
  return {
    registry,
    scrape: options.scrapeCluster ?? (() => registry.metrics()),
    http,
    lookups,
    feed,
    limitBackendErrors: new Counter({
      name: 'enrich_limit_backend_errors_total',
      help: 'Failed calls to the shared rate-limit and quota backend (Redis), by limit',
      labelNames: ['limit'],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'enrich_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, to be retried) or failed (for good)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
