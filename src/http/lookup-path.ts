// The request path of a lookup: authenticate → limit → parse → reserve quota → resolve → reply, then
// account. Synchronous from request to reply wherever the key, the limits and the store answer at once
// (SQLite and in-process limits): no promise, no await, no per-request logger, hook or metric object.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'fast-querystring';
import type { FastifyBaseLogger } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { outcomeOf } from '../accounting/outcome.js';
import { identifyKey, type KeyMatch, requireLive, requireScope } from '../auth/authenticate.js';
import { ProblemError } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import type { QuotaCounter, QuotaTicket } from '../limits/quota.js';
import {
  type LimitDecision,
  type RateLimiter,
  rateLimitHeaders,
  rateLimitPolicy,
  rateLimitState,
} from '../limits/rate-limit.js';
import type { UnauthenticatedLimit } from '../limits/unauthenticated.js';
import { idsListed } from '../lookup/item.js';
import { LOOKUPS, type LookupOperation } from '../lookup/operations.js';
import { parseLookupQuery } from '../lookup/query.js';
import { type Resolved, resolve } from '../lookup/resolve.js';
import type { Metrics } from '../metrics.js';
import { type ApiKey, isPromise, type MaybePromise, type Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import { hasBody, unwantedBody } from './body.js';
import type { CorsPolicy } from './cors.js';
import { PROBLEM_TYPE, problemDocument, toProblem } from './problem.js';
import type { HeldReply, TurnRelease } from './release.js';
import { requestId } from './request-id.js';

export interface LookupPathDeps {
  store: Store;
  limiter: RateLimiter;
  quota: QuotaCounter;
  metrics: Metrics;
  /** Audit and metering of keyed lookups; none (benchmarking their cost only) sends replies at once. */
  accounting: Accounting | undefined;
  log: FastifyBaseLogger;
  /** One log line per request: method, route, status, duration, request id. Never the query. */
  accessLog: boolean;
  /** CORS, when configured: its headers go on every lookup response (preflights go to Fastify). */
  cors?: CorsPolicy | undefined;
  /** The per-address limit of requests without a valid token. */
  unauthenticated: UnauthenticatedLimit;
  /** Where replies wait for their turn's accounting commit. */
  turns: TurnRelease;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * On every lookup response: records are personal data, kept by no cache (a client revalidates with
 * If-None-Match all the same), and no content is sniffed into something else.
 */
const SAFE_HEADERS = ['cache-control', 'private, no-store', 'x-content-type-options', 'nosniff'];
/** Each path served, and its operation; the path is also the route label in metrics, as Fastify names it. */
const ROUTES = new Map<string, LookupOperation>(
  LOOKUPS.flatMap((operation) => [
    [operation.path, operation],
    [`/v1${operation.path}`, operation],
  ]),
);

/** True when an If-None-Match header names this entity tag (or is `*`). */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** One lookup in flight: what it has learnt so far, and its reply once decided. */
class Lookup implements HeldReply {
  keyId: string | undefined;
  key: ApiKey | undefined;
  ticket: QuotaTicket | null = null;
  keys: Array<[string, LookupKey]> = [];
  matched: string[] = [];
  /** Response headers in order, as a flat [name, value, …] list. */
  readonly headers: string[];
  /** How many entries of `headers` every reply keeps: the request id, safe headers, CORS when on. */
  private readonly baseHeaders: number;
  status = 200;
  body: Buffer | string = '';
  /** Set once the reply is decided: a later failure (writing it) must not decide it again. */
  decided = false;

  constructor(
    readonly path: LookupPath,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly operation: LookupOperation,
    readonly route: string,
    readonly query: Record<string, unknown>,
    readonly id: string,
    readonly started: number,
  ) {
    this.headers = ['x-request-id', id, ...SAFE_HEADERS];
    const { cors } = path;
    if (cors !== undefined) this.headers.push(...cors.headersFor(req.headers.origin));
    this.baseHeaders = this.headers.length;
  }

  get keyed(): boolean {
    return this.keyId !== undefined;
  }

  /** Sends `503 unavailable` instead: its record could not be kept, so the answer is not disclosed. */
  refuse(): void {
    const problem = toProblem(new StoreUnavailableError());
    this.headers.length = this.baseHeaders; // only x-request-id, the safe headers (and CORS) stay
    for (const [name, value] of Object.entries(problem.headers)) this.headers.push(name, value);
    this.headers.push('content-type', PROBLEM_TYPE);
    this.status = problem.status;
    this.body = problemDocument(problem, this.id);
    this.send();
  }

  send(): void {
    const { res } = this;
    if (this.status !== 304) {
      const length = typeof this.body === 'string' ? Buffer.byteLength(this.body) : this.body.length;
      this.headers.push('content-length', String(length));
    }
    res.writeHead(this.status, this.headers);
    // A HEAD reply has the GET's headers and no body (Node's server drops it; inject() does not on Node 24).
    res.end(this.status === 304 || this.req.method === 'HEAD' ? undefined : this.body);
    this.path.sent(this);
  }
}

/**
 * Serves GET and HEAD of /people, /company and their /v1 twins. `serve` is called for every request the
 * HTTP server receives, before Fastify's router: it takes the lookups and leaves everything else.
 */
export class LookupPath {
  private closing = false;
  readonly cors: CorsPolicy | undefined;

  constructor(private readonly deps: LookupPathDeps) {
    this.cors = deps.cors;
  }

  /** From now on, leave every request to Fastify, which answers 503 while it closes. */
  close(): void {
    this.closing = true;
  }

  /** Serves the request if it is a lookup (true), or leaves it alone (false). */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    if (this.closing || url.charCodeAt(0) !== 47) return false;
    // Split where Fastify's router does: at the first '?' or '#'. A path with '%' goes to the router.
    const question = url.indexOf('?', 1);
    const hash = url.indexOf('#', 1);
    const end = hash >= 0 && (question < 0 || hash < question) ? hash : question;
    const path = end < 0 ? url : url.slice(0, end);
    const operation = ROUTES.get(path);
    if (operation === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const queryString = end < 0 ? '' : url.slice(end + 1);
    const query = queryString.length === 0 ? {} : (parseQuery(queryString) as Record<string, unknown>);
    this.handle(req, res, operation, path, query, requestId(req.headers['x-request-id']));
    return true;
  }

  /** Runs one lookup whose route, parsed query and request id are known (Fastify's router, or serve). */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    operation: LookupOperation,
    route: string,
    query: Record<string, unknown>,
    id: string,
  ): void {
    const lookup = new Lookup(this, req, res, operation, route, query, id, performance.now());
    try {
      const { unauthenticated } = this.deps;
      // An address over its limit of requests without a valid token: refused before any work on its token.
      const refusal = unauthenticated.blocking ? unauthenticated.refusal(req) : undefined;
      if (refusal !== undefined) throw refusal;
      if (hasBody(req)) throw unwantedBody(req, route);
      const match = identifyKey(this.deps.store, req.headers.authorization);
      if (isPromise(match)) this.later(lookup, match, this.authenticated);
      else this.authenticated(lookup, match);
    } catch (error) {
      this.fail(lookup, error);
    }
  }

  /** Continues a lookup with `next` once `pending` settles; a rejection is the lookup's problem. */
  private later<T>(lookup: Lookup, pending: Promise<T>, next: (lookup: Lookup, value: T) => void): void {
    pending.then(
      (value) => {
        try {
          next.call(this, lookup, value);
        } catch (error) {
          this.fail(lookup, error);
        }
      },
      (error: unknown) => this.fail(lookup, error),
    );
  }

  private authenticated(lookup: Lookup, match: KeyMatch): void {
    lookup.keyId = match.key.id;
    requireLive(match);
    lookup.key = match.key;
    const decision = this.deps.limiter.take(match.key.id, match.key.rate);
    if (isPromise(decision)) this.later(lookup, decision, this.admitted);
    else this.admitted(lookup, decision);
  }

  private admitted(lookup: Lookup, decision: LimitDecision): void {
    const key = lookup.key!;
    if (!decision.allowed) {
      throw new ProblemError(
        'rate_limited',
        `This key allows ${key.rate} requests per second.`,
        {},
        { ...rateLimitHeaders(key.rate, decision), 'retry-after': String(decision.retryAfterSeconds) },
      );
    }
    lookup.headers.push('ratelimit-policy', rateLimitPolicy(key.rate), 'ratelimit', rateLimitState(decision));
    requireScope(key, lookup.operation.scope);
    const { params, toKey } = lookup.operation;
    lookup.keys = parseLookupQuery(lookup.query, params).map(([name, raw]) => [name, toKey(name, raw)]);
    const ticket = this.deps.quota.reserve(key);
    if (isPromise(ticket)) this.later(lookup, ticket, this.reserved);
    else this.reserved(lookup, ticket);
  }

  private reserved(lookup: Lookup, ticket: QuotaTicket | null): void {
    lookup.ticket = ticket;
    const resolved: MaybePromise<Resolved> = resolve(this.deps.store, lookup.operation.entity, lookup.keys);
    if (isPromise(resolved)) this.later(lookup, resolved, this.found);
    else this.found(lookup, resolved);
  }

  private found(lookup: Lookup, { record, matchedBy }: Resolved): void {
    this.settle(lookup, true);
    lookup.matched = [record.id];
    lookup.headers.push('etag', record.etag, 'enrich-matched-by', matchedBy.join(', '));
    if (notModified(lookup.req.headers['if-none-match'] as string | undefined, record.etag)) {
      lookup.status = 304;
    } else {
      lookup.headers.push('content-type', JSON_TYPE);
      lookup.body = record.body;
    }
    this.finish(lookup);
  }

  /** Settled before replying, matched or not, so that every keyed response carries the remainder. */
  private settle(lookup: Lookup, matched: boolean): void {
    const { ticket } = lookup;
    if (ticket === null) return;
    lookup.ticket = null;
    lookup.headers.push('enrich-quota-remaining', String(ticket.settle(matched)));
  }

  private fail(lookup: Lookup, error: unknown): void {
    if (lookup.decided) {
      this.deps.log.error({ err: error, route: lookup.route, reqId: lookup.id }, 'reply failed');
      lookup.res.destroy();
      return;
    }
    let problem = toProblem(error);
    if (problem.code === 'unauthorized') {
      // Charged to the client's address: past its limit the answer is a 429 instead (charged once).
      const charged = this.deps.unauthenticated.charge(lookup.req, problem);
      if (isPromise(charged)) {
        this.later(lookup, charged, this.fail);
        return;
      }
      problem = charged;
    }
    this.settle(lookup, false);
    if (problem.code === 'ambiguous_match') lookup.matched = idsListed(problem);
    if (problem.status >= 500) {
      this.deps.log.error({ err: error, route: lookup.route, reqId: lookup.id }, 'request failed');
    }
    for (const [name, value] of Object.entries(problem.headers)) lookup.headers.push(name, value);
    lookup.headers.push('content-type', PROBLEM_TYPE);
    lookup.status = problem.status;
    lookup.body = problemDocument(problem, lookup.id);
    this.finish(lookup);
  }

  /** Counts the outcome, appends a keyed lookup's record, and holds the reply for the end of the turn. */
  private finish(lookup: Lookup): void {
    lookup.decided = true;
    // Counted by status, as accounting meters it: one mapping for both.
    const outcome = outcomeOf(lookup.status);
    if (outcome !== 'failed') this.deps.metrics.lookups.inc(lookup.operation.entity, outcome);
    const { accounting } = this.deps;
    if (lookup.keyId !== undefined && accounting !== undefined) {
      const { params, operation } = lookup.operation;
      accounting.append({
        at: Date.now(),
        keyId: lookup.keyId,
        operation,
        params: params.filter((p) => lookup.query[p] !== undefined),
        matched: lookup.matched,
        status: lookup.status,
      });
    }
    this.deps.turns.hold(lookup);
  }

  /** After a reply is written: request metrics, and the access log line when asked for. */
  sent(lookup: Lookup): void {
    const seconds = (performance.now() - lookup.started) / 1000;
    const { method = 'GET' } = lookup.req;
    this.deps.metrics.http.record(method, lookup.route, lookup.status, seconds);
    if (this.deps.accessLog) {
      const line = { method, route: lookup.route, status: lookup.status, ms: seconds * 1000 };
      this.deps.log.info({ reqId: lookup.id, ...line }, 'request');
    }
  }
}
