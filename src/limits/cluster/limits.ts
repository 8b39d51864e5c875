// A cluster worker's limits: every token and every quota reservation is decided by the primary.
import type { ApiKey } from '../../store/keys.js';
import type { QuotaCounter, QuotaGrant, QuotaTicket } from '../quota.js';
import type { LimitDecision, RateLimiter } from '../rate-limit.js';
import type { LimitChannel } from './channel.js';

/**
 * Asks the primary's bucket for each request: the worker holds no tokens of its own, so N workers
 * together admit exactly what one process would.
 */
export class ClusterRateLimiter implements RateLimiter {
  constructor(private readonly channel: LimitChannel) {}

  take(keyId: string, rate: number, cost = 1): Promise<LimitDecision> {
    return this.channel.call({ op: 'take', keyId, rate, cost }) as Promise<LimitDecision>;
  }
}

/** What the primary answers a reservation with: the ticket to settle, and the quota left with it held. */
export interface ClusterReservation {
  ticket: number;
  remaining: number;
}

/** What the primary answers a bulk's reservation with: the grant to settle, and the quota left with it held. */
export interface ClusterGrant extends ClusterReservation {
  granted: number;
}

/**
 * Reserves through the primary's quota counter and settles there. The remainder a worker reports is the
 * primary's as of the reservation.
 */
export class ClusterQuotaCounter implements QuotaCounter {
  constructor(private readonly channel: LimitChannel) {}

  async reserve(key: ApiKey): Promise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const { ticket, remaining } = (await this.channel.call({ op: 'reserve', key })) as ClusterReservation;
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          this.channel.notify({ op: 'settle', ticket, matched });
        }
        return matched ? remaining : remaining + 1;
      },
    };
  }

  async reserveItems(key: ApiKey, items: number): Promise<QuotaGrant | null> {
    if (key.quota === null) return null;
    const { ticket, granted, remaining } = (await this.channel.call({
      op: 'reserveItems',
      key,
      items,
    })) as ClusterGrant;
    let settled = false;
    return {
      granted,
      settle: (matched) => {
        if (!settled) {
          settled = true;
          this.channel.notify({ op: 'settleItems', ticket, matched });
        }
        return remaining + granted - Math.min(matched, granted);
      },
    };
  }

  /** Sends the settlements still queued here. */
  async close(): Promise<void> {
    this.channel.flush();
  }
}
