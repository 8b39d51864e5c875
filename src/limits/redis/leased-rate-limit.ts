// Per-key token buckets in Redis, spent from small local leases: a request is admitted without a round trip
// while this server holds a token of its key, and the next lease is fetched before the held one runs out.
import type { Redis } from 'ioredis';
import {
  belowLowWater,
  dryUntil,
  grownLease,
  LEASE_MS,
  leaseCap,
  leaseWanted,
  localShare,
  seenTokens,
  shrunkLease,
} from '../lease.js';
import { decisionFrom, type LimitDecision, MemoryRateLimiter, type RateLimiter } from '../rate-limit.js';
import { closeRedis, type RedisFailurePolicy } from './connection.js';
import type { ServerPresence } from './presence.js';
import { bucketKey, defineBucketScripts } from './rate-limit.js';

/** What this server holds of one key's shared bucket. */
interface Lease {
  rate: number;
  /** Tokens leased and not yet spent. */
  held: number;
  /** When the held tokens go back to the shared bucket, ms. */
  expiresMs: number;
  /** Tokens to hold: grows while the key is busy, shrinks when a lease expires unspent; 0: hold none. */
  size: number;
  /** Tokens leased earlier, to give back with the next call. */
  back: number;
  /** What the shared bucket held at Redis's last answer, and when. */
  reported: number;
  reportedMs: number;
  /** Until then the shared bucket holds no whole token: requests are refused without asking. */
  dryUntilMs: number;
  lastFetchMs: number;
  usedMs: number;
  fetching: Promise<void> | undefined;
  /** Requests waiting for the lease under way. */
  waiting: number;
}

/** Leases remembered at most; idle ones (nothing held) are forgotten first. */
const LEASES_HELD = 100_000;
/** A lease untouched this long, holding nothing, is forgotten, ms. */
const IDLE_MS = 60_000;
/** Rounds of waiting for a lease before a request is refused (other requests took what came). */
const ROUNDS = 5;

export interface LeasedRateLimiterOptions {
  now?: () => number;
  /** The heartbeat that tells the policy how many servers share the limits; stopped on close. */
  presence?: ServerPresence;
}

/**
 * Token buckets in Redis under `{prefix}bucket:{keyId}`, as RedisRateLimiter keeps them, leased to this
 * server a few tokens at a time (at most `leaseCap`, a quarter of the rate split between servers) for at
 * most LEASE_MS; unspent tokens go back. A bulk's cost is charged in Redis itself, so its debt is seen by
 * every server. While Redis is unreachable and the policy is `open`, each server limits each key to its
 * share of the rate (rate ÷ the servers last counted) in its own memory. Owns `redis`.
 * @example new LeasedRateLimiter(connectRedis(url), 'enrich:', policy).take(key.id, key.rate)
 */
export class LeasedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly local: MemoryRateLimiter;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly returning = new Set<Promise<unknown>>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly policy: RedisFailurePolicy,
    private readonly options: LeasedRateLimiterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.local = new MemoryRateLimiter(this.now);
    defineBucketScripts(redis);
    this.sweeper = setInterval(() => this.sweep(), LEASE_MS / 4).unref();
  }

  take(keyId: string, rate: number, cost = 1): LimitDecision | Promise<LimitDecision> {
    if (this.policy.local) return this.share(keyId, rate, cost);
    const nowMs = this.now();
    const lease = this.leaseOf(keyId, rate, nowMs);
    if (lease.held >= Math.max(1, cost)) return this.spend(keyId, lease, cost, nowMs);
    if (nowMs < lease.dryUntilMs && lease.held < 1) return this.refusal(lease, nowMs);
    if (cost > 1) return this.charge(keyId, lease, cost);
    return this.awaitLease(keyId, lease);
  }

  /** Gives back every token held, and waits for what is on its way. */
  private async release(): Promise<void> {
    for (const [keyId, lease] of this.leases) {
      lease.back += lease.held;
      lease.held = 0;
      this.giveBack(keyId, lease);
    }
    await Promise.all([...this.returning]);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.leases.values()].map((lease) => lease.fetching?.catch(() => {})));
    if (this.redis.status === 'ready') await this.release();
    await this.options.presence?.stop();
    await closeRedis(this.redis);
  }

  private leaseOf(keyId: string, rate: number, nowMs: number): Lease {
    let lease = this.leases.get(keyId);
    if (lease === undefined) {
      if (this.leases.size >= LEASES_HELD) this.forget(nowMs, 0);
      lease = {
        rate,
        held: 0,
        expiresMs: 0,
        size: 0,
        back: 0,
        reported: rate,
        reportedMs: nowMs,
        dryUntilMs: 0,
        lastFetchMs: Number.NEGATIVE_INFINITY,
        usedMs: nowMs,
        fetching: undefined,
        waiting: 0,
      };
      this.leases.set(keyId, lease);
    } else if (lease.rate !== rate) {
      // A key's changed rate applies from its next request: what was leased at the old one goes back.
      lease.back += lease.held;
      lease.held = 0;
      lease.size = 0;
      lease.dryUntilMs = 0;
      lease.rate = rate;
    } else if (lease.held > 0 && nowMs >= lease.expiresMs) {
      this.expire(lease);
    }
    lease.usedMs = nowMs;
    return lease;
  }

  /** Admits from the tokens held, and fetches the next lease once they are down to half. */
  private spend(keyId: string, lease: Lease, cost: number, nowMs: number): LimitDecision {
    lease.held -= cost;
    if (lease.fetching === undefined && belowLowWater(lease.held, lease.size) && nowMs >= lease.dryUntilMs)
      this.fetch(keyId, lease).catch(() => {}); // a failure was counted; the next request finds out
    return decisionFrom(true, this.seen(lease, nowMs), lease.rate);
  }

  private refusal(lease: Lease, nowMs: number): LimitDecision {
    return decisionFrom(false, this.seen(lease, nowMs), lease.rate);
  }

  private seen(lease: Lease, nowMs: number): number {
    return seenTokens(lease.reported, lease.reportedMs, nowMs, lease.rate, lease.held);
  }

  /** A request that found nothing held: it waits for the lease under way, or asks for one. */
  private async awaitLease(keyId: string, lease: Lease): Promise<LimitDecision> {
    for (let round = 0; round < ROUNDS; round++) {
      lease.waiting++;
      try {
        await (lease.fetching ?? this.fetch(keyId, lease));
      } finally {
        lease.waiting--;
      }
      if (this.policy.local) return this.share(keyId, lease.rate, 1);
      const nowMs = this.now();
      if (lease.held >= 1) return this.spend(keyId, lease, 1, nowMs);
      if (nowMs < lease.dryUntilMs) return this.refusal(lease, nowMs);
    }
    return this.refusal(lease, this.now());
  }

  /**
   * Asks Redis for the next lease: one token for each request waiting and the lease to hold, giving back
   * what expired. Rejects only when the policy refuses (`closed`).
   */
  private fetch(keyId: string, lease: Lease): Promise<void> {
    const startedMs = this.now();
    const cap = leaseCap(lease.rate, this.policy.servers);
    lease.size = grownLease(lease.size, cap, startedMs - lease.lastFetchMs);
    lease.lastFetchMs = startedMs;
    const want = leaseWanted(lease.waiting, lease.size, cap);
    const { rate, back } = lease;
    lease.back = 0;
    const fetching = this.redis
      .enrichLeaseTokens(bucketKey(this.prefix, keyId), rate, want, back)
      .then(
        ([granted, tokens]) => {
          const nowMs = this.now();
          this.report(lease, Number(tokens), nowMs);
          if (lease.rate !== rate) lease.back += granted;
          else lease.held += granted;
          lease.expiresMs = nowMs + LEASE_MS;
          if (granted < want) lease.dryUntilMs = dryUntil(lease.reported, nowMs, rate, lease.size);
          this.policy.answered();
        },
        (error: unknown) => {
          lease.back += back;
          this.policy.failed('rate', error);
        },
      )
      .finally(() => {
        if (lease.fetching === fetching) lease.fetching = undefined;
      });
    lease.fetching = fetching;
    return fetching;
  }

  /**
   * A bulk (cost over one) not covered by the tokens held: the tokens held and its cost are charged in Redis
   * at once, so that its debt is seen by every server.
   */
  private async charge(keyId: string, lease: Lease, cost: number): Promise<LimitDecision> {
    const held = lease.held;
    lease.held = 0;
    try {
      const [allowed, tokens] = await this.redis.enrichTakeToken(
        bucketKey(this.prefix, keyId),
        lease.rate,
        cost,
        held + lease.back,
      );
      lease.back = 0;
      const nowMs = this.now();
      this.report(lease, Number(tokens), nowMs);
      if (lease.reported < 1) lease.dryUntilMs = dryUntil(lease.reported, nowMs, lease.rate);
      this.policy.answered();
      return decisionFrom(allowed === 1, lease.reported, lease.rate);
    } catch (error) {
      this.policy.failed('rate', error);
      return this.share(keyId, lease.rate, cost);
    }
  }

  private report(lease: Lease, tokens: number, nowMs: number): void {
    lease.reported = tokens;
    lease.reportedMs = nowMs;
  }

  /** This server's share of the key's rate, counted here while Redis is unreachable. */
  private share(keyId: string, rate: number, cost: number): LimitDecision {
    this.policy.checkedLocally('rate');
    const share = localShare(rate, this.policy.servers);
    return this.local.take(keyId, share, cost, Math.max(1, share));
  }

  private expire(lease: Lease): void {
    lease.back += lease.held;
    lease.held = 0;
    lease.size = shrunkLease(lease.size);
  }

  /** Gives back expired leases, and forgets keys gone quiet. */
  private sweep(): void {
    const nowMs = this.now();
    for (const [keyId, lease] of this.leases) {
      if (lease.held > 0 && nowMs >= lease.expiresMs) this.expire(lease);
      if (lease.back > 0 && lease.fetching === undefined && !this.policy.local) this.giveBack(keyId, lease);
    }
    if (this.leases.size >= LEASES_HELD * 0.9) this.forget(nowMs, IDLE_MS);
  }

  /** Gives back tokens leased earlier: a lease of none. */
  private giveBack(keyId: string, lease: Lease): void {
    const { back, rate } = lease;
    if (back <= 0) return;
    lease.back = 0;
    const returning: Promise<unknown> = this.redis
      .enrichLeaseTokens(bucketKey(this.prefix, keyId), rate, 0, back)
      .then(
        ([, tokens]) => this.report(lease, Number(tokens), this.now()),
        (error: unknown) => this.policy.record(error), // lost: the bucket refills within a second
      )
      .finally(() => this.returning.delete(returning));
    this.returning.add(returning);
  }

  /** Forgets leases holding nothing, untouched for `idleMs`. */
  private forget(nowMs: number, idleMs: number): void {
    for (const [keyId, lease] of this.leases) {
      const idle =
        lease.held === 0 && lease.back === 0 && lease.fetching === undefined && lease.waiting === 0;
      if (idle && nowMs - lease.usedMs >= idleMs) this.leases.delete(keyId);
    }
  }
}
