// Declaring a keyed route: `app.keyedRoute({ method, url, scopes, schema }, handler)`. Its scopes, its
// cost and whether a quota applies are said once; the route is documented as taking a bearer token,
// screened as it arrives (guard.ts), admitted by the steps every keyed request passes (admission.ts),
// and its handler is given the admitted key. Its refusals are answered, logged and accounted alike.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { type ProblemError, toProblem } from '../errors.js';
import type { QuotaTicket } from '../limits/quota.js';
import type { ApiKey } from '../store/keys.js';
import { isPromise } from '../store/maybe-promise.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { Operation, Scope } from '../vocabulary/operations.js';
import type { Admission, Admittee, Gate } from './admission.js';
import { sendProblem } from './problem.js';
import type { RequestLog } from './request-log.js';

/** When the 401 that takes a client address over its limit of requests without a valid token turns 429. */
export type OverLimit = 'at once' | 'from the next request';

export interface KeyedRoute extends Omit<RouteOptions, 'handler' | 'config' | 'attachValidation'> {
  /** The key must hold one of these; none: any live key will do (a key reading its own usage). */
  scopes: readonly Scope[];
  /** Tokens a request takes from its key's bucket (default 1). */
  cost?: number;
  /**
   * Whether a request counts against the key's monthly quota of matched lookups: refused 402 once it is
   * used up; an answer that discloses records (`admitted.matched`) counts, and says what is left. The
   * count outlives the process through the audit of a lookup operation, as a lookup's does (`audit`).
   */
  quota?: boolean;
  /** Audited and metered as this operation, whatever the answer, once the token names a key. */
  audit?: {
    operation: Operation;
    /** The parameter names a request gave, for the entry of one refused before its handler said. */
    params(request: FastifyRequest): string[];
  };
  /**
   * `at once` (the default): the 401 that takes the client's address over its limit is answered 429.
   * `from the next request`: it is still a 401, and the address is refused from its next request — as the
   * searches and bulk have always answered.
   */
  overLimit?: OverLimit;
}

/** A request that passed admission: its key, and what its audit entry says it disclosed. */
export interface Admitted {
  readonly key: ApiKey;
  /** The parameter names the request gave; by default, the route's `audit.params`. */
  params: string[] | undefined;
  /** The ids of the records the answer disclosed. */
  matched: string[];
}

/** Answers an admitted request: sets headers on `reply` if it must, and returns the body to send. */
export type KeyedHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  admitted: Admitted,
) => Promise<unknown>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Registers a keyed route (http/keyed-route.ts); every route that takes a bearer token is one. */
    keyedRoute(route: KeyedRoute, handler: KeyedHandler): FastifyInstance;
  }
  interface FastifyContextConfig {
    /** A keyed route: screened as it arrives (guard.ts); a route that admits itself (bulk) sets it too. */
    keyed?: { overLimit: OverLimit };
  }
}

/** A keyed Fastify request in admission, then admitted. */
class KeyedCall implements Admittee, Admitted {
  keyId: string | undefined;
  key!: ApiKey;
  ticket: QuotaTicket | null = null;
  params: string[] | undefined;
  matched: string[] = [];

  constructor(
    readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  get req() {
    return this.request.raw;
  }

  header(name: string, value: string): void {
    this.reply.header(name, value);
  }
}

/** Gives `app` (and its plugins) `keyedRoute`, admitting through `admission` and logging to `requests`. */
export function decorateKeyedRoute(app: FastifyInstance, admission: Admission, requests: RequestLog): void {
  app.decorate(
    'keyedRoute',
    function keyedRoute(this: FastifyInstance, route: KeyedRoute, handler: KeyedHandler) {
      const { scopes, cost, quota = false, audit, overLimit = 'at once', ...options } = route;
      const gate: Gate<KeyedCall> =
        cost === undefined ? { scopes, quota } : { scopes, quota, cost: () => cost };
      const serve = new KeyedServe(admission, requests, gate, audit, overLimit, handler);
      this.route({
        ...options,
        schema: { ...options.schema, security: [{ bearer: [] }, { session: [] }] },
        // Validated once admitted: a client without a valid token learns nothing of what it sent.
        attachValidation: true,
        config: { keyed: { overLimit } },
        handler: (request, reply) => serve.answer(request, reply),
      });
      return this;
    },
  );
}

/** One keyed route's way from a request to its answer. */
class KeyedServe {
  constructor(
    private readonly admission: Admission,
    private readonly requests: RequestLog,
    private readonly gate: Gate<KeyedCall>,
    private readonly audit: KeyedRoute['audit'],
    private readonly overLimit: OverLimit,
    private readonly handler: KeyedHandler,
  ) {}

  async answer(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const call = new KeyedCall(request, reply);
    const started = performance.now();
    let answer: unknown;
    let problem: ProblemError | undefined;
    // The headers before the handler ran: a 503 for accounting that could not be kept carries no other.
    let before: string[] | undefined;
    try {
      await this.admission.admit(call, this.gate);
      if (request.validationError) throw request.validationError;
      if (this.audit) before = Object.keys(reply.getHeaders());
      answer = await this.handler(request, reply, call);
    } catch (error) {
      problem = toProblem(error);
      if (problem.status >= 500) this.requests.failed(error, request.routeOptions.url, request.id);
    }
    const { ticket } = call;
    if (ticket !== null) {
      const remaining = ticket.settle(problem === undefined && call.matched.length > 0);
      reply.header('enrich-quota-remaining', String(remaining));
    }
    if (this.audit && !this.accounted(call, request, reply, started, problem)) {
      for (const name of Object.keys(reply.getHeaders())) {
        if (before !== undefined && !before.includes(name)) reply.removeHeader(name);
      }
      return sendProblem(request, reply, toProblem(new StoreUnavailableError()));
    }
    if (problem === undefined) return answer;
    if (this.overLimit === 'at once') {
      const turned = this.admission.turn(request.raw, problem);
      problem = isPromise(turned) ? await turned.catch(toProblem) : turned;
    }
    return sendProblem(request, reply, problem);
  }

  /** Audits the request when its token named a key; false when the record could not be written. */
  private accounted(
    call: KeyedCall,
    request: FastifyRequest,
    reply: FastifyReply,
    started: number,
    problem?: ProblemError,
  ) {
    const { operation, params } = this.audit!;
    const status = problem?.status ?? reply.statusCode;
    const ms = performance.now() - started;
    const given = call.params ?? params(request);
    this.admission.account(call, operation, given, call.matched, status, Date.now(), ms);
    if (call.keyId === undefined) return true;
    try {
      this.admission.commit();
      return true;
    } catch {
      // Logged by the journal's health, once when the failure starts and once when it ends.
      return false;
    }
  }
}
