// The server's webhook dispatcher: turns the change log into deliveries by a cursor kept in the store, and
// attempts the due ones, at most 10 at once per endpoint and a bounded number in all, never in a request's
// way. Attempts that end together are recorded together, and as many claimed in their place at once.
// Killed at any point, it loses nothing: the cursor moves in the transaction that records deliveries, and a
// delivery claimed by a process that died (its attempt made or not, recorded or not) is claimed again when
// its lease ends.
import type { WatchedLookup } from '../changes/watch.js';
import type { ChangeStore } from '../store/changes.js';
import type { AttemptRecord, ClaimedDelivery, StoredEndpoint } from '../store/webhooks.js';
import { type Delivering, recordAttempts, tryDelivery } from './deliver.js';
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
  /** Attempts under way. */
  private readonly running = new Set<Promise<void>>();
  /** Attempts made and judged, not yet recorded: their deliveries stay leased until they are. */
  private readonly ended: AttemptRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopWatching: (() => void) | undefined;
  private pumping: Promise<void> | undefined;
  /** The log may have grown: read it before the next turn. */
  private readWanted = false;
  /** An attempt ended: record it, and claim what is due in its place. */
  private turnWanted = false;
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

  /** Reads the log's new events, then records what ended and starts what is due, soon. */
  wake(): void {
    this.readWanted = true;
    this.pump();
  }

  /** Stops claiming; attempts under way finish (each within its timeout) and are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.stopWatching?.();
    await this.pumping;
    await Promise.all(this.running);
    while (this.pumping) await this.pumping;
    await this.record();
    this.options.poster.close();
  }

  /**
   * Turns until nothing is wanted. Deferred to the loop's next turn, so that the attempts that end together
   * are recorded, and their places claimed, in one transaction each: the busier, the larger the batches.
   */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.turns())
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.pumping = undefined;
        if ((this.readWanted && !this.closed) || this.turnWanted) this.pump();
      });
  }

  private async turns(): Promise<void> {
    while ((this.readWanted && !this.closed) || this.turnWanted) {
      const read = this.readWanted && !this.closed;
      this.readWanted = false;
      this.turnWanted = false;
      // A page at a time, attempts started between pages: a large commit's first events go out at once.
      if (read && (await this.enqueuePage())) this.readWanted = true;
      await this.record();
      await this.startDue();
    }
  }

  /** Moves the cursor through the log, recording each page's deliveries with it. */
  async enqueue(): Promise<void> {
    while (await this.enqueuePage());
  }

  /** Moves the cursor over one page of the log, recording its deliveries with it; true when more may follow. */
  private async enqueuePage(): Promise<boolean> {
    const { store, changes, watchlists } = this.options;
    const cursor = await store.dispatchCursor();
    const endpoints = (await store.listEndpoints()).filter((e) => !e.disabled);
    // Nobody is owed what came before the earliest endpoint: the cursor skips it unread.
    const floor =
      endpoints.length === 0
        ? (await changes.changeBounds()).last
        : Math.min(...endpoints.map((e) => e.after_seq));
    if (floor > cursor) {
      await store.enqueueDeliveries(cursor, floor, []);
      return true;
    }
    const events = await changes.readChanges(cursor, PAGE);
    if (events.length === 0) return false;
    const deliveries = await planDeliveries(events, endpoints, watchlists);
    // Another process may have moved the cursor meanwhile: then its deliveries stand, and we read on.
    await store.enqueueDeliveries(cursor, events.at(-1)!.seq, deliveries);
    return events.length === PAGE;
  }

  /**
   * Records the attempts that ended, in one transaction. Should it fail, they are kept for the next turn;
   * should the process die first, their leases lapse and they are attempted again, with the same webhook-id.
   */
  private async record(): Promise<void> {
    if (this.ended.length === 0) return;
    const records = this.ended.splice(0);
    try {
      await recordAttempts(this.options, records);
    } catch (error) {
      this.ended.unshift(...records);
      throw error;
    }
  }

  /** Claims what is due, up to the room left, and starts each attempt in event order. */
  private async startDue(): Promise<void> {
    const { store, perEndpoint, inFlight, leaseMs } = this.options;
    const room = inFlight - this.running.size;
    if (room <= 0 || this.closed) return;
    const now = new Date();
    const claimed = await store.claimDeliveries(now, new Date(now.getTime() + leaseMs), room, perEndpoint);
    if (claimed.length === 0) return;
    // The endpoints as they are now, read once for all that was claimed.
    const ids = [...new Set(claimed.map((delivery) => delivery.endpoint_id))];
    const endpoints = new Map((await store.getEndpoints(ids)).map((e) => [e.id, e]));
    for (const delivery of claimed) {
      const endpoint = endpoints.get(delivery.endpoint_id);
      if (endpoint) this.attempt(endpoint, delivery);
    }
  }

  private attempt(endpoint: StoredEndpoint, delivery: ClaimedDelivery): void {
    const running: Promise<void> = tryDelivery(this.options, endpoint, delivery)
      .then((record) => void this.ended.push(record))
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.running.delete(running);
        this.turnWanted = true;
        this.pump();
      });
    this.running.add(running);
  }
}
