// One /metrics scrape for every worker of a cluster: the worker that takes the scrape asks the primary,
// which gathers each worker's values (and its own) and adds them up with prom-client's aggregator.
import cluster, { type Worker } from 'node:cluster';
import {
  AggregatorRegistry,
  type MetricObjectWithValues,
  type MetricValue,
  type Registry,
} from 'prom-client';

type Values = MetricObjectWithValues<MetricValue<string>>[];

/** Every metrics message, either way, carries this property; other messages pass by. */
type MetricsMessage =
  | { enrichMetrics: 'scrape'; id: number }
  | { enrichMetrics: 'scraped'; id: number; text?: string; error?: string }
  | { enrichMetrics: 'collect'; id: number }
  | { enrichMetrics: 'values'; id: number; metrics: Values };

const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  typeof message === 'object' && message !== null && 'enrichMetrics' in message;

/** How long the primary waits for a worker's values; a worker that does not answer is left out. */
const COLLECT_TIMEOUT_MS = 2_000;

/** In a worker: answers the primary's requests for this worker's values. */
export function answerMetricsRequests(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (!isMetricsMessage(message) || message.enrichMetrics !== 'collect') return;
    void registry.getMetricsAsJSON().then((metrics) => {
      process.send?.({ enrichMetrics: 'values', id: message.id, metrics } satisfies MetricsMessage);
    });
  });
}

let scrapes = 0;
const waitingScrapes = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
let listening = false;

/** In a worker: the whole cluster's metrics, as Prometheus text, gathered by the primary. */
export function scrapeCluster(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      if (!isMetricsMessage(message) || message.enrichMetrics !== 'scraped') return;
      const waiter = waitingScrapes.get(message.id);
      waitingScrapes.delete(message.id);
      if (message.text !== undefined) waiter?.resolve(message.text);
      else waiter?.reject(new Error(message.error ?? 'metrics could not be gathered'));
    });
  }
  const id = ++scrapes;
  return new Promise((resolve, reject) => {
    waitingScrapes.set(id, { resolve, reject });
    process.send?.({ enrichMetrics: 'scrape', id } satisfies MetricsMessage);
  });
}

/**
 * In the primary: answers workers' scrapes with the sum over every live worker, plus the primary's own
 * process metrics. Request and lookup counters add up; process metrics carry a `worker` label each.
 */
export class MetricsGatherer {
  private collections = 0;
  private readonly waiting = new Map<number, (metrics: Values) => void>();

  constructor(private readonly own: Registry) {}

  /** Handles a message from `worker`; false when it is not a metrics message. */
  receive(worker: Worker, message: unknown): boolean {
    if (!isMetricsMessage(message)) return false;
    if (message.enrichMetrics === 'values') this.waiting.get(message.id)?.(message.metrics);
    if (message.enrichMetrics === 'scrape') {
      this.gather().then(
        (text) => send(worker, { enrichMetrics: 'scraped', id: message.id, text }),
        (error: unknown) => send(worker, { enrichMetrics: 'scraped', id: message.id, error: String(error) }),
      );
    }
    return true;
  }

  private async gather(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w?.isConnected() === true,
    );
    const values = await Promise.all([this.own.getMetricsAsJSON(), ...workers.map((w) => this.collect(w))]);
    const present = values.filter((v): v is Values => v !== undefined);
    return AggregatorRegistry.aggregate(present).metrics();
  }

  private collect(worker: Worker): Promise<Values | undefined> {
    const id = ++this.collections;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), COLLECT_TIMEOUT_MS);
      const done = (metrics: Values | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(metrics);
      };
      this.waiting.set(id, done);
      send(worker, { enrichMetrics: 'collect', id });
    });
  }
}

function send(worker: Worker, message: MetricsMessage): void {
  if (worker.isConnected()) worker.send(message);
}
