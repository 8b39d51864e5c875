// The cluster primary's side of the limits: one bucket and one quota counter per key for every worker.
import { ProblemError, toProblem } from '../../errors.js';
import type { AccountingStore } from '../../store/accounting.js';
import type { ApiKey } from '../../store/keys.js';
import { MemoryQuotaCounter, type QuotaCounter, type QuotaGrant, type QuotaTicket } from '../quota.js';
import { MemoryRateLimiter, type RateLimiter } from '../rate-limit.js';
import {
  isLimitMessage,
  type LimitCall,
  type LimitMessage,
  type LimitReply,
  problemReply,
} from './channel.js';
import type { ClusterGrant, ClusterReservation } from './limits.js';

/**
 * Answers workers' limit calls from in-memory buckets and a MemoryQuotaCounter (which writes counts to
 * the store). Reservations are remembered per worker, so that a worker's death frees them.
 */
export class LimitOwner {
  private readonly tickets = new Map<number, Map<number, QuotaTicket>>();
  /** Bulk reservations in flight, per worker. */
  private readonly grants = new Map<number, Map<number, QuotaGrant>>();

  constructor(
    store: AccountingStore,
    private readonly limiter: RateLimiter = new MemoryRateLimiter(),
    private readonly quota: QuotaCounter = new MemoryQuotaCounter(store),
  ) {}

  /** Answers one message from a worker; messages that are not limit calls are ignored. */
  async receive(workerId: number, message: unknown, reply: (message: LimitMessage) => void): Promise<void> {
    if (!isLimitMessage(message)) return;
    const calls = message.enrichLimits as LimitCall[];
    const replies = await Promise.all(calls.map((call) => this.answer(workerId, call)));
    const answered = replies.filter((r): r is LimitReply => r !== undefined);
    if (answered.length > 0) reply({ enrichLimits: answered });
  }

  private async answer(workerId: number, call: LimitCall): Promise<LimitReply | undefined> {
    try {
      switch (call.op) {
        case 'take':
          return { id: call.id, value: await this.limiter.take(call.keyId, call.rate, call.cost) };
        case 'reserve':
          return { id: call.id, value: await this.reserve(workerId, call.id, call.key) };
        case 'settle':
          this.ticketsOf(workerId).get(call.ticket)?.settle(call.matched);
          this.ticketsOf(workerId).delete(call.ticket);
          return undefined;
        case 'reserveItems':
          return { id: call.id, value: await this.reserveItems(workerId, call.id, call.key, call.items) };
        case 'settleItems':
          this.grantsOf(workerId).get(call.ticket)?.settle(call.matched);
          this.grantsOf(workerId).delete(call.ticket);
          return undefined;
      }
    } catch (error) {
      return problemReply(call.id, toProblem(error));
    }
  }

  private async reserve(workerId: number, id: number, key: ApiKey): Promise<ClusterReservation | null> {
    const ticket = await this.quota.reserve(key);
    if (!ticket) return null;
    this.ticketsOf(workerId).set(id, ticket);
    return { ticket: id, remaining: await this.remainingWithHeld(key) };
  }

  /**
   * The quota left with the new reservation held. A counter tells the remainder only on settling, so
   * a probe reservation, released unmatched at once, reads it without counting anything.
   */
  private async remainingWithHeld(key: ApiKey): Promise<number> {
    try {
      return (await this.quota.reserve(key))?.settle(false) ?? 0;
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'quota_exceeded') return 0;
      throw error;
    }
  }

  private async reserveItems(
    workerId: number,
    id: number,
    key: ApiKey,
    items: number,
  ): Promise<ClusterGrant | null> {
    const grant = await this.quota.reserveItems(key, items);
    if (!grant) return null;
    this.grantsOf(workerId).set(id, grant);
    // A grant of nothing, settled at once, reads the remainder with this one held.
    const remaining = (await this.quota.reserveItems(key, 0))?.settle(0) ?? 0;
    return { ticket: id, granted: grant.granted, remaining };
  }

  private ticketsOf(workerId: number): Map<number, QuotaTicket> {
    return inner(this.tickets, workerId);
  }

  private grantsOf(workerId: number): Map<number, QuotaGrant> {
    return inner(this.grants, workerId);
  }

  /**
   * A worker has gone: its lookups in flight will never settle. Each may have been answered (and
   * journalled) before the worker died, so each counts as matched: a crash may overcount, never undercount.
   */
  release(workerId: number): void {
    for (const ticket of this.tickets.get(workerId)?.values() ?? []) ticket.settle(true);
    for (const grant of this.grants.get(workerId)?.values() ?? []) grant.settle(grant.granted);
    this.tickets.delete(workerId);
    this.grants.delete(workerId);
  }

  async close(): Promise<void> {
    await this.quota.close();
    await this.limiter.close?.();
  }
}

/** The map a worker's entries are kept in, made on first use. */
function inner<T>(outer: Map<number, Map<number, T>>, workerId: number): Map<number, T> {
  let map = outer.get(workerId);
  if (!map) {
    map = new Map();
    outer.set(workerId, map);
  }
  return map;
}
