// The server's webhook dispatcher: turns the change log into deliveries by a cursor kept in the store, and
// attempts the due ones, at most 10 at once per endpoint and a bounded number in all, never in a request's
// way. Killed at any point, it loses nothing: the cursor moves in the transaction that records deliveries,
// and a delivery claimed by a process that died is claimed again when its lease ends.
import type { WatchedLookup } from '../changes/watch.js';
import type { ChangeStore } from '../store/changes.js';
import type { ClaimedDelivery, StoredEndpoint } from '../store/webhooks.js';
import { attemptDelivery, type Delivering } from './deliver.js';
import { planDeliveries } from './plan.js';
import { ATTEMPT_TIMEOUT_MS } from './post.js';

/** What a dispatcher needs; its `poster` is its own, closed with it. */
export interface DispatcherOptions extends Delivering {
  changes: ChangeStore;
  /** Which events a watchlist watches (the store's watchlists role). */
  watchlists: WatchedLookup;
  /** Attempts in flight per endpoint (10) and in all (100). */
  perEndpoint?: number;
  inFlight?: number;
  /** How long a claim holds a delivery: past the attempt's timeout, so only a dead process's claims lapse. */
  leaseMs?: number;
  /** Looks for due retries and other processes' events at least this often (1 s). */
  pollMs?: number;
  onError?: (error: unknown) => void;
}

/** Events read from the log per step. */
const PAGE = 500;

export class WebhookDispatcher {
  private readonly options: Required<
    Pick<DispatcherOptions, 'perEndpoint' | 'inFlight' | 'leaseMs' | 'pollMs'>
  > &
    DispatcherOptions;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopWatching: (() => void) | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(options: DispatcherOptions) {
    this.options = {
      perEndpoint: 10,
      inFlight: 100,
      leaseMs: ATTEMPT_TIMEOUT_MS + 20_000,
      pollMs: 1000,
      ...options,
    };
  }

  /** Starts dispatching: now, on every commit to the log, and every `pollMs`. */
  start(): void {
    this.stopWatching = this.options.changes.watchChanges(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Dispatches soon; a wake-up during a round makes one more round after it. */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.round()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming; attempts under way finish (each within its timeout) and are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.stopWatching?.();
    await this.pumping;
    await Promise.all(this.running);
    this.options.poster.close();
  }

  /** One round: the log's new events made deliveries, then the due deliveries started. */
  private async round(): Promise<void> {
    await this.enqueue();
    await this.startDue();
  }

  /** Moves the cursor through the log, recording each page's deliveries with it. */
  async enqueue(): Promise<void> {
    const { store, changes, watchlists } = this.options;
    for (;;) {
      const cursor = await store.dispatchCursor();
      const endpoints = (await store.listEndpoints()).filter((e) => !e.disabled);
      // Nobody is owed what came before the earliest endpoint: the cursor skips it unread.
      const floor =
        endpoints.length === 0
          ? (await changes.changeBounds()).last
          : Math.min(...endpoints.map((e) => e.after_seq));
      if (floor > cursor) {
        await store.enqueueDeliveries(cursor, floor, []);
        continue;
      }
      const events = await changes.readChanges(cursor, PAGE);
      if (events.length === 0) return;
      const deliveries = await planDeliveries(events, endpoints, watchlists);
      // Another process may have moved the cursor meanwhile: then its deliveries stand, and we read on.
      await store.enqueueDeliveries(cursor, events.at(-1)!.seq, deliveries);
      if (events.length < PAGE) return;
    }
  }

  /** Claims what is due, up to the room left, and starts each attempt in event order. */
  private async startDue(): Promise<void> {
    const { store, perEndpoint, inFlight, leaseMs } = this.options;
    const room = inFlight - this.running.size;
    if (room <= 0 || this.closed) return;
    const now = new Date();
    const claimed = await store.claimDeliveries(now, new Date(now.getTime() + leaseMs), room, perEndpoint);
    const endpoints = new Map<string, StoredEndpoint | undefined>();
    for (const delivery of claimed) {
      if (!endpoints.has(delivery.endpoint_id)) {
        endpoints.set(delivery.endpoint_id, await store.getEndpoint(delivery.endpoint_id));
      }
      const endpoint = endpoints.get(delivery.endpoint_id);
      if (endpoint) this.attempt(endpoint, delivery);
    }
  }

  private attempt(endpoint: StoredEndpoint, delivery: ClaimedDelivery): void {
    const running: Promise<void> = attemptDelivery(this.options, endpoint, delivery)
      .then(() => undefined)
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.running.delete(running);
        this.wake();
      });
    this.running.add(running);
  }
}
