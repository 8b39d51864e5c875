// A keyed request's admission, written once for every keyed route, the fast lookup path included. In order:
//
//   screen    an address over its limit of requests without a valid token: 429   (as the request arrives)
//   identify  no token, a malformed or unknown one: 401
//   live      a revoked, expired or rotated-out token: 401 (its key known, so the refusal is audited)
//   rate      the key's bucket empty: 429 with Retry-After; RateLimit headers on every answer from here
//   scope     none of the scopes the route needs: 403
//   quota     the month's matched lookups used up: 402 with Enrich-Quota-Remaining: 0
//
// A kind of route fits its own work between the steps (its Gate). Each step answers at once where the store
// and the limits do (SQLite, in-process limits): no promise and no closure, so that lookups stay synchronous.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounting } from '../accounting/accounting.js';
import type { MinuteCounts } from '../accounting/minute-counts.js';
import {
  identifyKey,
  type KeyFinder,
  type KeyMatch,
  requireLive,
  requireScopes,
} from '../auth/authenticate.js';
import { type ConsoleSessions, sessionIdOf } from '../auth/sessions.js';
import { ProblemError, toProblem } from '../errors.js';
import type { QuotaCounter, QuotaTicket } from '../limits/quota.js';
import {
  type LimitDecision,
  type RateLimiter,
  rateLimited,
  rateLimitPolicy,
  rateLimitState,
} from '../limits/rate-limit.js';
import type { UnauthenticatedLimit } from '../limits/unauthenticated.js';
import type { ApiKey } from '../store/keys.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { Operation, Scope } from '../vocabulary/operations.js';

export interface AdmissionDeps {
  keys: KeyFinder;
  limiter: RateLimiter;
  quota: QuotaCounter;
  unauthenticated: UnauthenticatedLimit;
  /** Audit and metering of keyed requests; none (benchmarking their cost only) records nothing. */
  accounting: Accounting | undefined;
  /** The per-minute counts of keyed requests (the admin API's charts); none with accounting off. */
  minutes?: MinuteCounts | undefined;
  /** The console's sessions: a request with no Authorization header may name its key by their cookie. */
  sessions?: ConsoleSessions | undefined;
}

/** A keyed request as admission sees it, held by each kind's own object (Lookup, BulkCall, KeyedCall). */
export interface Admittee {
  readonly req: IncomingMessage;
  /** The key the token named, live or not: set as soon as it is known, so that its refusals are audited. */
  keyId: string | undefined;
  /** The key, once found live. */
  key: ApiKey | undefined;
  /** The reservation of a gate with a quota, once made; null for a key without a quota. */
  ticket: QuotaTicket | null;
  /** Adds a response header: the RateLimit ones, once the request is within its key's rate. */
  header(name: string, value: string): void;
}

/** How one kind of keyed request is admitted: what it needs, what it costs, its own work between the steps. */
export interface Gate<C extends Admittee = Admittee> {
  /** The key must hold one of these; none: any live key will do (a key reading its own usage). */
  readonly scopes: readonly Scope[];
  /** Reserves one matched lookup of the key's monthly quota once admitted: a 402 when it is used up. */
  readonly quota: boolean;
  /** The 429's detail when the key's bucket is empty; by default, in requests per second. */
  readonly rateDetail?: (rate: number) => string;
  /** Tokens the request takes from its key's bucket: one unless said (a bulk: its items). */
  cost?(call: C): number;
  /** Work before the token is read; a refusal here costs nothing (a GET's body). */
  beforeKey?(call: C): void;
  /** Work once the key is live, before its rate; a refusal here still costs one token (a bulk's body). */
  afterLive?(call: C): MaybePromise<void>;
  /** Work once the scope is checked, before the quota (a lookup's parameters parsed). */
  afterScope?(call: C): void;
}

/** Stand for the refusals a route answered without turning them, when they are charged once sent. */
const SENT: Record<number, ProblemError> = {
  401: new ProblemError('unauthorized', 'sent by the route'),
  404: new ProblemError('not_found', 'sent by the route'),
  415: new ProblemError('unsupported_media_type', 'sent by the route'),
};

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  /** Whether keyed requests are audited and metered (they are unless benchmarking what that costs). */
  get accounts(): boolean {
    return this.deps.accounting !== undefined;
  }

  /**
   * The first step, as a request arrives (before its body is read): the 429 for an address over its limit
   * of requests without a valid token, unless its token has been seen live here; else undefined.
   */
  screen(req: IncomingMessage): ProblemError | undefined {
    const { unauthenticated } = this.deps;
    return unauthenticated.blocking ? unauthenticated.refusal(req) : undefined;
  }

  /**
   * The steps after the screen, with the gate's own work between them. Returns once admitted, or throws the
   * refusal; a promise (resolved once admitted, rejected with the refusal) only when a step waits.
   */
  admit<C extends Admittee>(call: C, gate: Gate<C>): MaybePromise<void> {
    gate.beforeKey?.(call);
    const match = this.identify(call.req);
    if (isPromise(match)) return match.then((found) => this.identified(call, gate, found));
    return this.identified(call, gate, match);
  }

  /**
   * Checks again that an admitted request may go on — its token still names a live key that holds one of
   * the gate's scopes — without taking from its bucket: what a long stream asks between batches, ending
   * with the refusal (401, 403) as its last line. At once where the store knows its keys in memory.
   */
  recheck<C extends Admittee>(call: C, gate: Gate<C>): MaybePromise<void> {
    const match = this.identify(call.req);
    if (isPromise(match)) return match.then((found) => this.stillAdmitted(call, gate, found));
    return this.stillAdmitted(call, gate, match);
  }

  /**
   * What a refusal becomes for the client's address: a 401 is charged to it, and past the address's limit
   * the answer is a 429 instead (a request is charged once, however often it is asked).
   */
  turn(req: IncomingMessage, problem: ProblemError): MaybePromise<ProblemError> {
    return problem.code === 'unauthorized' ? this.deps.unauthenticated.charge(req, problem) : problem;
  }

  /**
   * Charges a refusal with one of `statuses` (401, 404, 415) that a route sent without turning, once it has
   * gone; a turned one is not charged again.
   */
  chargeWhenSent(req: IncomingMessage, res: ServerResponse, statuses: readonly number[] = [401, 415]): void {
    res.once('finish', () => {
      if (!statuses.includes(res.statusCode)) return;
      const charged = this.deps.unauthenticated.charge(req, SENT[res.statusCode]!);
      if (isPromise(charged)) charged.catch(() => {}); // a limiter that failed: the next 401 tries again
    });
  }

  /**
   * Audits and meters a request whose token named a key: the parameter names it gave (never their values),
   * the record ids it disclosed, its status. A bulk accounts each item so, as a single lookup. Counted in its
   * minute too, with how long it took (`ms`) when the caller timed it.
   */
  account(
    call: Admittee,
    operation: Operation,
    params: string[],
    matched: string[],
    status: number,
    at = Date.now(),
    ms?: number,
  ): void {
    const { accounting, minutes } = this.deps;
    if (call.keyId === undefined || accounting === undefined) return;
    accounting.append({ at, keyId: call.keyId, operation, params, matched, status });
    minutes?.count(call.keyId, operation, status, matched.length > 0, ms, at);
  }

  /** Writes what has been accounted; throws when it could not be (the answers must then not go out). */
  commit(): void {
    this.deps.accounting?.commit();
  }

  /**
   * The key a request names: by its bearer token, or, with no Authorization header at all, by the console's
   * session cookie (the bearer path reads no cookie and costs what it did).
   */
  private identify(req: IncomingMessage): MaybePromise<KeyMatch> {
    const { authorization, cookie } = req.headers;
    if (authorization === undefined && cookie !== undefined && this.deps.sessions !== undefined) {
      const id = sessionIdOf(cookie);
      if (id !== undefined) return this.deps.sessions.identify(req, id);
    }
    return identifyKey(this.deps.keys, authorization);
  }

  private identified<C extends Admittee>(call: C, gate: Gate<C>, match: KeyMatch): MaybePromise<void> {
    call.keyId = match.key.id;
    requireLive(match);
    call.key = match.key;
    if (gate.afterLive === undefined) return this.limit(call, gate);
    let ready: MaybePromise<void>;
    try {
      ready = gate.afterLive(call);
    } catch (error) {
      return this.refusedWhileLive(call, gate, error);
    }
    if (!isPromise(ready)) return this.limit(call, gate);
    return ready.then(
      () => this.limit(call, gate),
      (error: unknown) => this.refusedWhileLive(call, gate, error),
    );
  }

  private limit<C extends Admittee>(call: C, gate: Gate<C>): MaybePromise<void> {
    const key = call.key!;
    const decision = this.deps.limiter.take(key.id, key.rate, gate.cost?.(call) ?? 1);
    if (isPromise(decision)) return decision.then((decided) => this.limited(call, gate, decided));
    return this.limited(call, gate, decision);
  }

  private limited<C extends Admittee>(call: C, gate: Gate<C>, decision: LimitDecision): MaybePromise<void> {
    this.rated(call, gate, decision);
    const key = call.key!;
    requireScopes(key, gate.scopes);
    gate.afterScope?.(call);
    if (!gate.quota) return;
    const ticket = this.deps.quota.reserve(key);
    if (!isPromise(ticket)) {
      call.ticket = ticket;
      return;
    }
    return ticket.then((reserved) => {
      call.ticket = reserved;
    });
  }

  /** The 429 of a refused decision, or the RateLimit headers of an allowed one. */
  private rated<C extends Admittee>(call: C, gate: Gate<C>, decision: LimitDecision): void {
    const { rate } = call.key!;
    if (!decision.allowed) throw rateLimited(rate, decision, gate.rateDetail?.(rate));
    call.header('ratelimit-policy', rateLimitPolicy(rate));
    call.header('ratelimit', rateLimitState(decision));
  }

  /**
   * A live key's request refused before its rate step still takes a token, as a lookup refused for its
   * query does: over the rate, the answer is the 429 instead. A failure of the server's costs nothing.
   */
  private refusedWhileLive<C extends Admittee>(call: C, gate: Gate<C>, error: unknown): MaybePromise<never> {
    if (toProblem(error).status >= 500) throw error;
    const key = call.key!;
    const decision = this.deps.limiter.take(key.id, key.rate);
    const refuse = (decided: LimitDecision): never => {
      this.rated(call, gate, decided);
      throw error;
    };
    return isPromise(decision) ? decision.then(refuse) : refuse(decision);
  }

  private stillAdmitted<C extends Admittee>(call: C, gate: Gate<C>, match: KeyMatch): void {
    requireLive(match);
    requireScopes(match.key, gate.scopes);
    call.key = match.key;
  }
}
