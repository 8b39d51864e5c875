// Monthly quotas in Redis, shared by every process and spent from small local leases: a lookup is reserved
// without a round trip while this server holds a unit of its key's quota.
import type { Redis } from 'ioredis';
import type { AccountingStore } from '../../store/accounting.js';
import type { ApiKey } from '../../store/keys.js';
import type { MaybePromise } from '../../store/maybe-promise.js';
import { belowLowWater, grownLease, LEASE_MS, leaseWanted, quotaLeaseCap, shrunkLease } from '../lease.js';
import {
  type QuotaCounter,
  type QuotaGrant,
  type QuotaTicket,
  quotaExceeded,
  quotaPeriod,
} from '../quota.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';
import { outageGrant, outageTicket, type QuotaOutage, startOutage } from './quota-outage.js';
import { defineQuotaScripts, periodExpiry, usedKey } from './quota-scripts.js';

export { periodExpiry } from './quota-scripts.js';

/** What this server holds of one key's quota for one period. */
interface QuotaLease {
  readonly keyId: string;
  readonly period: string;
  /** Units reserved in Redis, not yet handed to a lookup. */
  units: number;
  /** Redis's count at its last answer (every server's units included); undefined before one. */
  used: number | undefined;
  size: number;
  expiresMs: number;
  /** Until then the quota was found used up: lookups are refused without asking. */
  exhaustedUntilMs: number;
  lastFetchMs: number;
  usedMs: number;
  fetching: Promise<void> | undefined;
  waiting: number;
  /** Counted here while Redis was unreachable, until added to Redis's count. */
  outage: QuotaOutage | undefined;
}

export interface RedisQuotaOptions {
  /** The date, for the quota's period. */
  now?: () => Date;
  /** The clock of leases, ms. */
  clock?: () => number;
}

/** Rounds of waiting for a lease before a lookup is refused (other lookups took what came). */
const ROUNDS = 5;
/** A lease untouched this long, holding nothing, is forgotten, ms. */
const IDLE_MS = 60_000;

/**
 * Quota counts in Redis under `{prefix}quota:{keyId:period}:used`. Each server reserves units of a key's
 * quota a few at a time (a lease: at most a quarter of what is left, split between servers) and hands them
 * to lookups itself; a lookup that did not match gives its unit back to the lease, and units unspent for
 * LEASE_MS go back to Redis. Redis counts every unit leased, so the quota is never exceeded while Redis
 * answers, and a process that dies can only overcount (by the units it held). The first use of a period
 * seeds the count from the store; the store's own counts come from the accounting journal. While Redis is
 * unreachable (`open`), each server counts its share of what was left, and adds what it counted to Redis's
 * count when it answers again. Owns `redis`.
 */
export class RedisQuotaCounter implements QuotaCounter {
  private readonly leases = new Map<string, QuotaLease>();
  private readonly returning = new Set<Promise<unknown>>();
  private readonly now: () => Date;
  private readonly clock: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
    private readonly store: AccountingStore,
    options: RedisQuotaOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.clock = options.clock ?? Date.now;
    defineQuotaScripts(redis);
    this.sweeper = setInterval(() => this.sweep(), LEASE_MS / 4).unref();
  }

  reserve(key: ApiKey): MaybePromise<QuotaTicket | null> {
    if (key.quota === null) return null;
    const quota = key.quota;
    const lease = this.leaseOf(key.id);
    if (this.policy.local) return this.counted(key, lease, (o) => outageTicket(o, quota, this.late(lease)));
    if (lease.outage !== undefined) return this.reconcile(lease).then(() => this.reserve(key));
    if (lease.units >= 1) return this.ticket(key, lease);
    if (this.clock() < lease.exhaustedUntilMs) throw quotaExceeded(quota, lease.period);
    return this.awaitUnits(key, lease);
  }

  /**
   * Reserves as many of a bulk's items as the quota has left: from the units held first, the rest from
   * Redis; the items not matched go back to the lease when the grant is settled.
   */
  reserveItems(key: ApiKey, items: number): MaybePromise<QuotaGrant | null> {
    if (key.quota === null) return null;
    const lease = this.leaseOf(key.id);
    if (this.policy.local) return this.counted(key, lease, (o) => outageGrant(o, items, this.late(lease)));
    if (lease.outage !== undefined) return this.reconcile(lease).then(() => this.reserveItems(key, items));
    const held = Math.min(items, lease.units);
    lease.units -= held;
    if (held === items || this.clock() < lease.exhaustedUntilMs) return this.grant(key, lease, held);
    return this.reserveUnits(key, lease, items - held).then(
      (more) => {
        if (!this.policy.local) return this.grant(key, lease, held + more);
        lease.units += held; // Redis failed: the whole bulk counts against this server's share
        return this.reserveItems(key, items);
      },
      (error: unknown) => {
        lease.units += held;
        throw error;
      },
    );
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.leases.values()].map((lease) => lease.fetching?.catch(() => {})));
    if (this.redis.status === 'ready') {
      for (const lease of this.leases.values()) {
        if (lease.outage !== undefined) await this.reconcile(lease).catch(() => {});
        this.giveBack(lease, lease.units);
        lease.units = 0;
      }
    }
    await Promise.all([...this.returning]);
    await closeRedis(this.redis);
  }

  private leaseOf(keyId: string): QuotaLease {
    const period = quotaPeriod(this.now());
    let lease = this.leases.get(keyId);
    if (lease?.period !== period) {
      if (lease !== undefined) this.giveBack(lease, lease.units); // last month's units
      lease = {
        keyId,
        period,
        units: 0,
        used: undefined,
        size: 0,
        expiresMs: 0,
        exhaustedUntilMs: 0,
        lastFetchMs: Number.NEGATIVE_INFINITY,
        usedMs: 0,
        fetching: undefined,
        waiting: 0,
        outage: undefined,
      };
      this.leases.set(keyId, lease);
    }
    lease.usedMs = this.clock();
    return lease;
  }

  /** Hands a unit held to a lookup, and fetches the next lease once the units are down to half. */
  private ticket(key: ApiKey, lease: QuotaLease): QuotaTicket {
    lease.units--;
    const remaining = this.remaining(key, lease);
    this.prefetch(key, lease);
    let settled = false;
    return {
      settle: (matched) => {
        if (!settled) {
          settled = true;
          if (!matched) this.unitsBack(lease, 1);
        }
        return matched ? remaining : remaining + 1;
      },
    };
  }

  private grant(key: ApiKey, lease: QuotaLease, granted: number): QuotaGrant {
    const remaining = this.remaining(key, lease);
    this.prefetch(key, lease);
    let settled = false;
    return {
      granted,
      settle: (matched) => {
        const unused = granted - Math.min(matched, granted);
        if (!settled) {
          settled = true;
          this.unitsBack(lease, unused);
        }
        return remaining + unused;
      },
    };
  }

  /** What the key has left as this server sees it: Redis's count, less the units this server holds. */
  private remaining(key: ApiKey, lease: QuotaLease): number {
    return Math.max(0, key.quota! - (lease.used ?? 0) + lease.units);
  }

  private prefetch(key: ApiKey, lease: QuotaLease): void {
    const idle = lease.fetching === undefined && this.clock() >= lease.exhaustedUntilMs;
    if (idle && belowLowWater(lease.units, lease.size)) this.fetch(key, lease).catch(() => {});
  }

  /** A lookup that found no unit held: it waits for the lease under way, or asks for one. */
  private async awaitUnits(key: ApiKey, lease: QuotaLease): Promise<QuotaTicket | null> {
    for (let round = 0; round < ROUNDS; round++) {
      lease.waiting++;
      try {
        await (lease.fetching ?? this.fetch(key, lease));
      } finally {
        lease.waiting--;
      }
      if (this.policy.local) return this.reserve(key);
      if (lease.units >= 1) return this.ticket(key, lease);
      if (this.clock() < lease.exhaustedUntilMs) break;
    }
    throw quotaExceeded(key.quota!, lease.period);
  }

  /** Leases units: one for each lookup waiting and the lease to hold. */
  private fetch(key: ApiKey, lease: QuotaLease): Promise<void> {
    const startedMs = this.clock();
    const cap = quotaLeaseCap(key.quota! - (lease.used ?? 0), this.policy.servers);
    lease.size = grownLease(lease.size, cap, startedMs - lease.lastFetchMs);
    lease.lastFetchMs = startedMs;
    const want = leaseWanted(lease.waiting, lease.size, cap);
    const fetching = this.reserveUnits(key, lease, want)
      .then((granted) => {
        lease.units += granted;
        lease.expiresMs = this.clock() + LEASE_MS;
      })
      .finally(() => {
        if (lease.fetching === fetching) lease.fetching = undefined;
      });
    lease.fetching = fetching;
    return fetching;
  }

  /**
   * Reserves up to `want` units in Redis, seeding the period from the store on its first use; how many it
   * got (0 when Redis failed and the policy lets the caller count locally). Fewer than asked: used up.
   */
  private async reserveUnits(key: ApiKey, lease: QuotaLease, want: number): Promise<number> {
    let outcome = await this.tryReserve(key, lease, '', want);
    if (outcome?.[0] === -1) {
      const seed = await this.store.quotaUsed(lease.keyId, lease.period);
      outcome = await this.tryReserve(key, lease, String(seed), want);
    }
    if (outcome === undefined) return 0;
    const [granted, used] = outcome;
    lease.used = used;
    if (granted < want) lease.exhaustedUntilMs = this.clock() + LEASE_MS;
    return granted;
  }

  /** The script's answer, or undefined when Redis failed and the policy lets the caller count locally. */
  private async tryReserve(key: ApiKey, lease: QuotaLease, seed: string, want: number) {
    try {
      const used = usedKey(this.prefix, lease.keyId, lease.period);
      const outcome = await this.redis.enrichReserveQuotaItems(
        used,
        key.quota!,
        seed,
        periodExpiry(lease.period),
        want,
      );
      this.policy.answered();
      return outcome;
    } catch (error) {
      this.policy.failed('quota', error);
      return undefined;
    }
  }

  /** Units a lookup or a bulk did not use: back to the lease while it is this period's, else to Redis. */
  private unitsBack(lease: QuotaLease, units: number): void {
    if (units <= 0) return;
    if (this.leases.get(lease.keyId) === lease && lease.outage === undefined) lease.units += units;
    else this.giveBack(lease, units);
  }

  private giveBack(lease: QuotaLease, units: number): void {
    if (units <= 0) return;
    const used = usedKey(this.prefix, lease.keyId, lease.period);
    const releasing: Promise<unknown> = this.redis
      .enrichReleaseQuotaItems(used, units)
      .catch((error: unknown) => {
        this.policy.record(error);
        this.stillHeld(lease, units);
      })
      .finally(() => this.returning.delete(releasing));
    this.returning.add(releasing);
  }

  /**
   * Units that could not go back to Redis are still counted there: held again, to be spent or given back
   * once Redis answers; during an outage, among the units the outage found counted. A past period's units
   * stay counted (an overcount, never under).
   */
  private stillHeld(lease: QuotaLease, units: number): void {
    if (this.leases.get(lease.keyId) !== lease) return;
    if (lease.outage === undefined) lease.units += units;
    else if (!lease.outage.reconciled) lease.outage.held += units;
  }

  /**
   * An outage's reservation, against this server's share of what is left: left as the store counts it (every
   * server's journal folded in) or as Redis last told this server, whichever is less. Found once per key.
   */
  private counted<T>(key: ApiKey, lease: QuotaLease, take: (outage: QuotaOutage) => T): MaybePromise<T> {
    this.policy.checkedLocally('quota');
    if (lease.outage !== undefined) return take(lease.outage);
    const seen = lease.used === undefined ? 0 : lease.used - lease.units; // the units held here are not used
    const begin = (used: number) => {
      lease.outage ??= startOutage(lease.period, key.quota!, used, lease.units, this.policy.servers);
      lease.units = 0;
      return take(lease.outage);
    };
    return this.store.quotaUsed(key.id, lease.period).then(
      (stored) => begin(Math.max(stored, seen)),
      () => begin(seen),
    );
  }

  /** Adds what an outage counted here to Redis's count, once Redis answers again. */
  private reconcile(lease: QuotaLease): Promise<void> {
    const outage = lease.outage!;
    lease.fetching ??= this.addUse(lease, outage.matched - outage.held)
      .then((used) => {
        if (used === undefined) return; // Redis failed again: still counted here
        outage.reconciled = true;
        lease.outage = undefined;
        lease.used = used < 0 ? undefined : used;
      })
      .finally(() => {
        lease.fetching = undefined;
      });
    return lease.fetching;
  }

  /** Adds `delta` to a count that exists: the count, -1 when Redis has none, undefined when it failed. */
  private async addUse(lease: QuotaLease, delta: number): Promise<number | undefined> {
    const used = usedKey(this.prefix, lease.keyId, lease.period);
    try {
      const count = await this.redis.enrichReconcileQuota(used, delta, periodExpiry(lease.period));
      this.policy.answered();
      return count;
    } catch (error) {
      this.policy.failed('quota', error);
      return undefined;
    }
  }

  /** A lookup that matched after its outage was added to Redis: added on its own. */
  private late(lease: QuotaLease) {
    return (units: number) => {
      const adding: Promise<unknown> = this.addUse(lease, units)
        .catch(() => {}) // closed: lost here, but the journal has it in the store
        .finally(() => this.returning.delete(adding));
      this.returning.add(adding);
    };
  }

  /** Gives back units held past their lease, and forgets keys gone quiet. */
  private sweep(): void {
    const nowMs = this.clock();
    for (const [keyId, lease] of this.leases) {
      if (lease.units > 0 && nowMs >= lease.expiresMs && lease.fetching === undefined && !this.policy.local) {
        this.giveBack(lease, lease.units);
        lease.units = 0;
        lease.size = shrunkLease(lease.size);
      }
      const idle = lease.units === 0 && lease.outage === undefined && lease.fetching === undefined;
      if (idle && lease.waiting === 0 && nowMs - lease.usedMs >= IDLE_MS) this.leases.delete(keyId);
    }
  }
}
