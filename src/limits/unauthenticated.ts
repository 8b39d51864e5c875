// Requests without a valid token, limited per client address: a token bucket charged by every 401 (and 404
// and 415 of a request that named no route or sent a body of no accepted type).
import type { IncomingMessage } from 'node:http';
import { isVouchedFor } from '../auth/authenticate.js';
import { ProblemError } from '../errors.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import { addressBucket } from './address-bucket.js';
import { type LimitDecision, type RateLimiter, rateLimitHeaders } from './rate-limit.js';

/** The refusals charged to an address: no valid token, no such route, a body of no accepted type. */
const CHARGED = new Set(['unauthorized', 'not_found', 'unsupported_media_type']);

/** Addresses remembered as over their limit before the expired ones are dropped (or, failing that, all). */
const BLOCKED_HELD = 10_000;

/**
 * The per-address limit of requests whose token is missing, malformed, unknown, revoked, expired or
 * rotated out. Each such request takes a token from its address's bucket — `rate` per second, a
 * second's worth of burst — in the server's own limiter (this process, the cluster primary, or Redis:
 * the same buckets as the keys', under `ip:<address>`), so the limit holds across workers and
 * instances as the keys' does. Requests with a valid token never touch it.
 *
 * An address found over its limit is remembered here until its Retry-After: meanwhile its requests
 * are refused before any work on their token, except a token this process has already seen name a
 * live key, so that a client sharing the address (behind one NAT) keeps working.
 */
export class UnauthenticatedLimit {
  /** Addresses over their limit, and until when (ms); the lookup path looks only while there are any. */
  private readonly blocked = new Map<string, number>();
  /** Requests whose 401 has been charged: one charge each, however many places see the 401. */
  private readonly charged = new WeakSet<IncomingMessage>();
  /** True while some address is refused: only then does a request pay to have its address read. */
  blocking = false;
  /** When the last of the refusals ends (ms): then every address is free again at once. */
  private lastUntil = 0;

  constructor(
    private readonly limiter: RateLimiter,
    /** Requests per second and burst; 0 turns the limit off. */
    readonly rate: number,
    private readonly addressOf: (req: IncomingMessage) => string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The 429 for a request from an address over its limit, unless its token has been seen valid here;
   * undefined when it may go on. Costs nothing while no address is over its limit.
   */
  refusal(req: IncomingMessage): ProblemError | undefined {
    if (!this.blocking) return undefined;
    const now = this.now();
    if (now >= this.lastUntil) {
      this.blocked.clear();
      this.blocking = false;
      return undefined;
    }
    const address = addressBucket(this.addressOf(req));
    const until = this.blocked.get(address);
    if (until === undefined) return undefined;
    const waitMs = until - now;
    if (waitMs <= 0) {
      this.blocked.delete(address);
      return undefined;
    }
    if (isVouchedFor(req.headers.authorization)) return undefined;
    return this.tooMany(Math.ceil(waitMs / 1000));
  }

  /**
   * Charges a request's 401 (or 404 or 415: a probe of what is not there) to its address: the problem
   * itself while the address is within its limit, a 429 with Retry-After once it is over. A request is
   * charged once, however often it is asked.
   */
  charge(req: IncomingMessage, problem: ProblemError): MaybePromise<ProblemError> {
    if (this.rate === 0 || !CHARGED.has(problem.code) || this.charged.has(req)) return problem;
    this.charged.add(req);
    const address = addressBucket(this.addressOf(req));
    const decision = this.limiter.take(`ip:${address}`, this.rate);
    return isPromise(decision)
      ? decision.then((d) => this.decided(address, d, problem))
      : this.decided(address, decision, problem);
  }

  private decided(address: string, decision: LimitDecision, problem: ProblemError): ProblemError {
    if (decision.allowed) return problem;
    this.block(address, this.now() + decision.retryAfterSeconds * 1000);
    return this.tooMany(decision.retryAfterSeconds);
  }

  private tooMany(retryAfterSeconds: number): ProblemError {
    return new ProblemError(
      'rate_limited',
      `Too many requests without a valid token from this address: ${this.rate} per second are allowed.`,
      {},
      {
        'retry-after': String(retryAfterSeconds),
        ...rateLimitHeaders(this.rate, { remaining: 0, resetSeconds: retryAfterSeconds }),
      },
    );
  }

  private block(address: string, until: number): void {
    if (this.blocked.size >= BLOCKED_HELD) {
      const now = this.now();
      for (const [held, heldUntil] of this.blocked) if (heldUntil <= now) this.blocked.delete(held);
      // Still full: forgetting is safe, as the buckets themselves still refuse.
      if (this.blocked.size >= BLOCKED_HELD) this.blocked.clear();
    }
    this.blocked.set(address, until);
    this.lastUntil = Math.max(this.lastUntil, until);
    this.blocking = true;
  }
}
