// Per-key token bucket (contract §6): `rate` tokens per second, holding at most one second's worth; the
// RateLimit headers of a decision, and the 429 of a refused one.
import { ProblemError } from '../errors.js';

/** What a limiter decided for one request, with what the RateLimit headers need. */
export interface LimitDecision {
  allowed: boolean;
  /** Whole requests left in the bucket after this one (0 while it is in debt after a bulk). */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until one request will be allowed. */
  retryAfterSeconds: number;
  /** Milliseconds until the bucket holds a whole token again, so that the next request is admitted; 0 if it does. */
  waitMs: number;
}

/** A rate limiter: in-process here; shared implementations (cluster, Redis) sit behind the same interface. */
export interface RateLimiter {
  /**
   * Admits a request when the key's bucket holds at least one token, and then takes `cost` tokens (default
   * 1): a bulk of n items costs n, and may leave the bucket in debt, which later requests wait out.
   */
  take(keyId: string, rate: number, cost?: number): LimitDecision | Promise<LimitDecision>;
  close?(): Promise<void>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * The decision for a bucket left holding `tokens` (negative when a bulk put it in debt): Retry-After and
 * the wait cover the deficit up to one whole token. Shared with the Redis limiter, whose script returns
 * the tokens it left.
 */
export function decisionFrom(allowed: boolean, tokens: number, rate: number): LimitDecision {
  const waitMs = tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / rate) * 1000);
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((rate - tokens) / rate),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
    waitMs,
  };
}

/**
 * Refills a bucket to `nowMs` and, when it holds a whole token, takes `cost` tokens. Pure apart from
 * mutating `bucket`, so it can be tested with a fake clock and reused by other limiters. It holds one
 * second's worth unless `capacity` says more (a share of a rate under one per second still admits one).
 */
export function takeToken(
  bucket: Bucket,
  rate: number,
  nowMs: number,
  cost = 1,
  capacity = rate,
): LimitDecision {
  const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
  bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * rate);
  bucket.updatedMs = nowMs;
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= cost;
  return decisionFrom(allowed, bucket.tokens, rate);
}

/** Buckets held in memory at most: client addresses come and go by the million, keys do not. */
const BUCKETS_HELD = 100_000;
/** A bucket untouched this long is full again (a second refills any bucket not in a bulk's debt), ms. */
const IDLE_MS = 60_000;

/**
 * Token buckets held in this process's memory. A bucket that is full again is the same as none, so
 * when the map reaches its bound the idle ones are forgotten, and if that is not enough the oldest.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  constructor(
    private readonly now: () => number = Date.now,
    private readonly held = BUCKETS_HELD,
  ) {}

  take(keyId: string, rate: number, cost = 1, capacity = rate): LimitDecision {
    const nowMs = this.now();
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: capacity, updatedMs: nowMs };
      this.remember(keyId, bucket, nowMs);
    }
    return takeToken(bucket, rate, nowMs, cost, capacity);
  }

  private remember(keyId: string, bucket: Bucket, nowMs: number): void {
    if (this.buckets.size >= this.held) {
      for (const [id, { updatedMs }] of this.buckets)
        if (nowMs - updatedMs >= IDLE_MS) this.buckets.delete(id);
      // Still full: the oldest go (a bucket forgotten early only starts full again).
      for (const id of this.buckets.keys()) {
        if (this.buckets.size < this.held * 0.9) break;
        this.buckets.delete(id);
      }
    }
    this.buckets.set(keyId, bucket);
  }

  /** How many buckets are held (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }
}

const policies = new Map<number, string>();

/** The `RateLimit-Policy` of a rate: the same text for every request of every key with that rate. */
export function rateLimitPolicy(rate: number): string {
  let policy = policies.get(rate);
  if (policy === undefined) {
    policy = `"default";q=${rate};w=1`;
    if (policies.size < 1000) policies.set(rate, policy);
  }
  return policy;
}

/** The `RateLimit` header of a decision. */
export const rateLimitState = (decision: Pick<LimitDecision, 'remaining' | 'resetSeconds'>) =>
  `"default";r=${decision.remaining};t=${decision.resetSeconds}`;

/** The IETF httpapi rate-limit draft headers for a decision. */
export function rateLimitHeaders(
  rate: number,
  decision: Pick<LimitDecision, 'remaining' | 'resetSeconds'>,
): Record<string, string> {
  return { 'ratelimit-policy': rateLimitPolicy(rate), ratelimit: rateLimitState(decision) };
}

/** The 429 of a key's refused request: its RateLimit headers, and Retry-After for when a token is back. */
export function rateLimited(
  rate: number,
  decision: LimitDecision,
  detail = `This key allows ${rate} requests per second.`,
): ProblemError {
  const headers = { ...rateLimitHeaders(rate, decision), 'retry-after': String(decision.retryAfterSeconds) };
  return new ProblemError('rate_limited', detail, {}, headers);
}
