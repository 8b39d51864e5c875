// The server's webhook dispatcher: turns the change log into deliveries by a cursor kept in the store, and
// attempts the due ones, at most 10 at once per endpoint and a bounded number in all, never in a request's
// way. It claims an endpoint's due deliveries by the thousand, and no other process claims that endpoint's
// while it holds any: it attempts them from a queue of its own, in order, while the store's write lock is
// elsewhere (a refresh holds SQLite's most of the time). Attempts that end together are recorded together.
// Killed at any point, it loses nothing: the cursor moves in the transaction that records deliveries, and a
// delivery claimed by a process that died (its attempt made or not, recorded or not) is claimed again when
// its lease ends.
import { randomUUID } from 'node:crypto';
import type { WatchedLookup } from '../changes/watch.js';
import type { ChangeStore } from '../store/changes.js';
import { isBusy } from '../store/unavailable.js';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  deliverySeq,
  type StoredEndpoint,
} from '../store/webhooks.js';
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
  /** Deliveries of one endpoint held at once, claimed, under way or not yet recorded (1,000). */
  claimBatch?: number;
  /**
   * How long a claim holds a delivery (30 s). An attempt starts only in the first half of its lease, so that
   * it ends (10 s at most) and is recorded before the lease does: only a dead process's claims lapse.
   */
  leaseMs?: number;
  /** Looks for due retries and other processes' events at least this often (1 s). */
  pollMs?: number;
  onError?: (error: unknown) => void;
}

/** Events read from the log per step. */
const PAGE = 2000;

/** After SQLite answered busy (another process holds the write lock), the store is tried again this soon. */
const BUSY_RETRY_MS = 10;

/** A claimed delivery, and when its lease ends. */
interface Held {
  delivery: ClaimedDelivery;
  /** Its number: first attempts go in this order. */
  seq: number;
  leaseEndsMs: number;
}

/** One endpoint's claimed deliveries not yet started, oldest first, and its attempts under way. */
interface EndpointQueue {
  endpoint: StoredEndpoint;
  waiting: Held[];
  running: number;
}

export class WebhookDispatcher {
  private readonly options: Required<
    Pick<DispatcherOptions, 'perEndpoint' | 'inFlight' | 'claimBatch' | 'leaseMs' | 'pollMs'>
  > &
    DispatcherOptions;
  /** Who this dispatcher's leases are held by. */
  private readonly claimer = randomUUID();
  /** Attempts under way. */
  private readonly running = new Set<Promise<void>>();
  /** Attempts made and judged, not yet recorded: their deliveries stay leased until they are. */
  private readonly ended: AttemptRecord[] = [];
  /** Claimed deliveries waiting for their turn, by endpoint. */
  private readonly queues = new Map<string, EndpointQueue>();
  /** Every delivery this dispatcher holds (waiting, under way, or ended and not recorded), by id. */
  private readonly held = new Set<string>();
  /** Claimed deliveries it will not start: their leases to be ended, for anyone to claim again. */
  private readonly unstarted: ClaimedDelivery[] = [];
  private timer: NodeJS.Timeout | undefined;
  private busyRetry: NodeJS.Timeout | undefined;
  /** The log's read was cut short by a busy store: read it again when the store is retried. */
  private rereadAfterBusy = false;
  private stopWatching: (() => void) | undefined;
  private pumping: Promise<void> | undefined;
  /** The log may have grown: read it before the next turn. */
  private readWanted = false;
  /** An attempt ended: record it, and start what is due in its place. */
  private turnWanted = false;
  /** Deliveries may be due that this dispatcher has not claimed. */
  private claimWanted = false;
  private closed = false;

  constructor(options: DispatcherOptions) {
    this.options = {
      perEndpoint: 10,
      inFlight: 100,
      claimBatch: 1000,
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
    this.claimWanted = true;
    this.pump();
  }

  /**
   * Stops claiming; attempts under way finish (each within its timeout) and are recorded, and claimed
   * deliveries not started are released, for another process to claim at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.stopWatching?.();
    for (const queue of this.queues.values()) this.giveBack(queue.waiting.splice(0));
    await this.pumping;
    await Promise.all(this.running);
    while (this.pumping) await this.pumping;
    clearTimeout(this.busyRetry);
    await this.settleUntilDone();
    this.options.poster.close();
  }

  /**
   * Turns until nothing is wanted. Deferred to the loop's next turn, so that the attempts that end together
   * are recorded in one transaction each: the busier, the larger the batches.
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
      this.startWaiting();
      try {
        // A page at a time, attempts started between pages: a large commit's first events go out at once.
        if (read && (await this.enqueuePage())) this.readWanted = true;
        await this.record();
        await this.releaseUnstarted();
        if (this.claimWanted && !this.closed) await this.claim();
      } catch (error) {
        // Any other failure waits for the next wake (the poll), not to be met again at once.
        if (!isBusy(error)) throw error;
        // Another process writes: what is claimed goes on meanwhile, and the store is tried again soon.
        this.rereadAfterBusy ||= read;
        this.busyRetry ??= setTimeout(() => {
          this.busyRetry = undefined;
          if (this.rereadAfterBusy) this.readWanted = true;
          this.rereadAfterBusy = false;
          this.turnWanted = true;
          this.pump();
        }, BUSY_RETRY_MS);
        return;
      }
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
    if (deliveries.length > 0) this.claimWanted = true;
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
    this.forget(records);
    // Their places are free: when a queue runs low, claim what is due in them.
    if (this.runningLow()) this.claimWanted = true;
  }

  /** No endpoint's deliveries are held, or one's queue is down to half a batch. */
  private runningLow(): boolean {
    if (this.queues.size === 0) return true;
    const low = this.options.claimBatch / 2;
    for (const queue of this.queues.values()) if (queue.waiting.length < low) return true;
    return false;
  }

  /** Ends the leases of the claimed deliveries this dispatcher will not start. Kept for the next turn on failure. */
  private async releaseUnstarted(): Promise<void> {
    if (this.unstarted.length === 0) return;
    const given = this.unstarted.splice(0);
    try {
      await this.options.store.releaseDeliveries(
        given.map((delivery) => delivery.id),
        this.claimer,
      );
    } catch (error) {
      this.unstarted.unshift(...given);
      throw error;
    }
  }

  /** On closing: records what ended and releases what was not started, waiting out another's write lock. */
  private async settleUntilDone(): Promise<void> {
    for (;;) {
      try {
        await this.record();
        return await this.releaseUnstarted();
      } catch (error) {
        if (!isBusy(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
      }
    }
  }

  /** Claims what is due, up to a batch per endpoint held, and starts what it can. */
  private async claim(): Promise<void> {
    const { store, claimBatch, leaseMs } = this.options;
    this.claimWanted = false;
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const claimed = await store
      .claimDeliveries(now, leaseUntil, claimBatch, claimBatch, this.claimer)
      .catch((error: unknown) => {
        // Still wanted: claimed at the retry after a busy store.
        this.claimWanted = true;
        throw error;
      });
    // The endpoints as they are now, read once for all that was claimed and all that waits: one disabled or
    // deleted meanwhile is attempted no more.
    const ids = new Set([...this.queues.keys(), ...claimed.map((delivery) => delivery.endpoint_id)]);
    const endpoints = new Map((await store.getEndpoints([...ids])).map((e) => [e.id, e]));
    for (const [id, queue] of this.queues) {
      const endpoint = endpoints.get(id);
      if (endpoint && !endpoint.disabled) queue.endpoint = endpoint;
      else this.giveBack(queue.waiting.splice(0));
    }
    const leaseEndsMs = leaseUntil.getTime();
    const unordered = new Set<EndpointQueue>();
    for (const delivery of claimed) {
      const endpoint = endpoints.get(delivery.endpoint_id);
      // Held already: this process claimed it again after its lease ended, its attempt not yet recorded.
      if (!endpoint || this.held.has(delivery.id)) continue;
      this.held.add(delivery.id);
      let queue = this.queues.get(endpoint.id);
      if (!queue) {
        queue = { endpoint, waiting: [], running: 0 };
        this.queues.set(endpoint.id, queue);
      }
      const seq = deliverySeq(delivery.id)!;
      // Claimed oldest first, mostly after what waits; a retry due again may come before.
      if (seq < (queue.waiting.at(-1)?.seq ?? 0)) unordered.add(queue);
      queue.waiting.push({ delivery, seq, leaseEndsMs });
    }
    for (const queue of unordered) queue.waiting.sort((a, b) => a.seq - b.seq);
    // A full batch: more may be due once it is attempted.
    if (claimed.length > 0) this.claimWanted = true;
    this.startWaiting();
  }

  /**
   * Starts waiting deliveries, oldest first per endpoint and endpoints in turn, up to the limits in flight.
   * One whose lease is past its first half is released, with the rest of its endpoint's queue.
   */
  private startWaiting(): void {
    const { perEndpoint, inFlight, leaseMs } = this.options;
    if (this.closed) return;
    for (let started = true; started && this.running.size < inFlight; ) {
      started = false;
      for (const [id, queue] of this.queues) {
        if (this.running.size >= inFlight) break;
        if (queue.running >= perEndpoint) continue;
        const next = queue.waiting.shift();
        if (!next) {
          if (queue.running === 0) this.queues.delete(id);
          continue;
        }
        if (next.leaseEndsMs - Date.now() < leaseMs / 2) {
          this.giveBack([next, ...queue.waiting.splice(0)]);
          continue;
        }
        this.attempt(queue, next.delivery);
        started = true;
      }
    }
  }

  /** Forgets deliveries this dispatcher no longer holds: recorded, or given back. */
  private forget(done: readonly { delivery: ClaimedDelivery }[]): void {
    for (const { delivery } of done) this.held.delete(delivery.id);
  }

  /** Gives claimed deliveries back unstarted: their leases are ended at the next turn. */
  private giveBack(waiting: readonly Held[]): void {
    this.forget(waiting);
    for (const { delivery } of waiting) this.unstarted.push(delivery);
    if (waiting.length > 0) this.turnWanted = true;
  }

  private attempt(queue: EndpointQueue, delivery: ClaimedDelivery): void {
    queue.running++;
    const running: Promise<void> = tryDelivery(this.options, queue.endpoint, delivery)
      .then((record) => void this.ended.push(record))
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        queue.running--;
        this.running.delete(running);
        this.turnWanted = true;
        this.pump();
      });
    this.running.add(running);
  }
}
