// The request path of a lookup: admission (the screen, the key, its rate and scope, the query parsed, the
// quota) → resolve → reply, then account. Synchronous from request to reply wherever the key, the limits
// and the store answer at once (SQLite and in-process limits): no promise, no await, no per-request
// logger, hook or metric object. A POST lookup reads its JSON body first, then goes the same way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'fast-querystring';
import { outcomeOf } from '../accounting/usage-outcome.js';
import { ProblemError, toProblem } from '../errors.js';
import { projectRecord } from '../lookup/fields.js';
import { idsListed } from '../lookup/item.js';
import { LOOKUPS, type LookupOperation } from '../lookup/operations.js';
import { parseLookupQuery } from '../lookup/query.js';
import { type Resolved, resolve } from '../lookup/resolve.js';
import { FIELDS_PARAM, parseSelection, selectionEtag } from '../lookup/selection.js';
import type { Metrics } from '../metrics.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { Store } from '../store/store.js';
import type { Admission, Gate } from './admission.js';
import { hasBody, unwantedBody } from './body.js';
import type { CorsPolicy } from './cors.js';
import { notModified } from './entity-tag.js';
import { type LookupInput, readLookupBody } from './lookup-body.js';
import { Lookup, type LookupReplies } from './lookup-reply.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import type { TurnRelease } from './release.js';
import { requestId } from './request-id.js';
import type { RequestLog } from './request-log.js';

export interface LookupPathDeps {
  store: Store;
  admission: Admission;
  /** Lookups counted by outcome. */
  metrics: Metrics;
  /** Request metrics, the access log and failures. */
  requests: RequestLog;
  /** CORS, when configured: its headers go on every lookup response (preflights go to Fastify). */
  cors?: CorsPolicy | undefined;
  /** Where replies wait for their turn's accounting commit. */
  turns: TurnRelease;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Each path served, and its operation; the path is also the route label in metrics, as Fastify names it. */
const ROUTES = new Map<string, LookupOperation>(
  LOOKUPS.flatMap((operation) => [
    [operation.path, operation],
    [`/v1${operation.path}`, operation],
  ]),
);
/** The POST lookups, which take the parameters as a JSON body: `/v1/people/lookup`, `/v1/company/lookup`. */
const BODY_ROUTES = new Map<string, LookupOperation>(
  LOOKUPS.map((operation) => [`/v1${operation.path}/lookup`, operation]),
);
/** Parameters a lookup accepts besides its identifiers. */
const OPTIONS = [FIELDS_PARAM];

/** A GET or HEAD takes no body (a POST lookup's was read before): refused before its token is read. */
function refuseBody(lookup: Lookup): void {
  if (lookup.req.method !== 'POST' && hasBody(lookup.req)) throw unwantedBody(lookup.req, lookup.route);
}

/** Once the key may look up: the parameters parsed (a refusal is charged, as the rate step came first). */
function parseParams(lookup: Lookup): void {
  const { query } = lookup;
  if (query instanceof ProblemError) throw query; // a POST body that is not one
  const { params, toKeys, entity } = lookup.operation;
  const { keys, name } = toKeys(parseLookupQuery(query, params, OPTIONS));
  lookup.keys = keys;
  lookup.name = name;
  if (query[FIELDS_PARAM] !== undefined) lookup.selection = parseSelection(entity, query[FIELDS_PARAM]);
}

/** A lookup's admission: its operation's scope, one token, one matched lookup of the quota. */
const gateOf = (operation: LookupOperation): Gate<Lookup> => ({
  scopes: [operation.scope],
  quota: true,
  beforeKey: refuseBody,
  afterScope: parseParams,
});

/**
 * Serves GET and HEAD of /people, /company and their /v1 twins, and POST of /v1/people/lookup and
 * /v1/company/lookup. `serve` is called for every request the HTTP server receives, before Fastify's
 * router: it takes the lookups and leaves everything else.
 */
export class LookupPath implements LookupReplies {
  private closing = false;
  readonly cors: CorsPolicy | undefined;
  private readonly gates = new Map(LOOKUPS.map((operation) => [operation, gateOf(operation)]));

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
    if (operation === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) {
      return this.serveBody(req, res, path);
    }
    const queryString = end < 0 ? '' : url.slice(end + 1);
    const query = queryString.length === 0 ? {} : (parseQuery(queryString) as Record<string, unknown>);
    this.handle(req, res, operation, path, query, requestId(req.headers['x-request-id']));
    return true;
  }

  /** Serves a POST lookup (true), or leaves the request alone (false). Its query string is not read. */
  private serveBody(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const operation = req.method === 'POST' ? BODY_ROUTES.get(path) : undefined;
    if (operation === undefined) return false;
    this.handleBody(req, res, operation, path, requestId(req.headers['x-request-id']));
    return true;
  }

  /** Reads a POST lookup's body, then runs it as `handle` does with the parameters it holds. */
  handleBody(
    req: IncomingMessage,
    res: ServerResponse,
    operation: LookupOperation,
    route: string,
    id: string,
  ) {
    const started = performance.now();
    readLookupBody(req, operation.params).then(
      (input) => this.handle(req, res, operation, route, input, id, started),
      (error: unknown) => {
        this.deps.requests.failed(error, route, id, 'reading a lookup body failed');
        this.handle(req, res, operation, route, toProblem(error), id, started);
      },
    );
  }

  /**
   * Runs one lookup whose route, parameters (a parsed query, or a body's) and request id are known
   * (Fastify's router, or serve).
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    operation: LookupOperation,
    route: string,
    query: LookupInput,
    id: string,
    started = performance.now(),
  ): void {
    const lookup = new Lookup(this, req, res, operation, route, query, id, started);
    try {
      const { admission } = this.deps;
      const refusal = admission.screen(req);
      if (refusal !== undefined) throw refusal;
      const admitted = admission.admit(lookup, this.gates.get(operation)!);
      if (isPromise(admitted)) this.later(lookup, admitted, this.reserved);
      else this.reserved(lookup);
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

  /** Admitted, its quota reserved: the record looked up. */
  private reserved(lookup: Lookup): void {
    const { store } = this.deps;
    const resolved: MaybePromise<Resolved> = resolve(
      store,
      lookup.operation.entity,
      lookup.keys,
      lookup.name,
    );
    if (isPromise(resolved)) this.later(lookup, resolved, this.found);
    else this.found(lookup, resolved);
  }

  private found(lookup: Lookup, { record, matchedBy, likelihood }: Resolved): void {
    this.settle(lookup, true);
    lookup.matched = [record.id];
    const { selection } = lookup;
    const etag = selection === undefined ? record.etag : selectionEtag(record.etag, selection);
    lookup.headers.push('etag', etag, 'enrich-matched-by', matchedBy.join(', '));
    if (likelihood !== undefined) lookup.headers.push('enrich-match-likelihood', String(likelihood));
    if (notModified(lookup.req.headers['if-none-match'] as string | undefined, etag)) {
      lookup.status = 304;
    } else {
      lookup.headers.push('content-type', JSON_TYPE);
      lookup.body = selection === undefined ? record.body : projectRecord(record.body, selection.tree);
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
      this.deps.requests.failed(error, lookup.route, lookup.id, 'reply failed');
      lookup.res.destroy();
      return;
    }
    // A 401 is charged to the client's address: past its limit the answer is a 429 instead.
    const problem = this.deps.admission.turn(lookup.req, toProblem(error));
    if (isPromise(problem)) {
      this.later(lookup, problem, this.fail);
      return;
    }
    this.settle(lookup, false);
    if (problem.code === 'ambiguous_match') lookup.matched = idsListed(problem);
    if (problem.status >= 500) this.deps.requests.failed(error, lookup.route, lookup.id);
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
    const { admission } = this.deps;
    if (lookup.keyId !== undefined && admission.accounts) {
      const { params, operation } = lookup.operation;
      const { query } = lookup;
      // The identifiers given, never `fields`: the audit says who looked up whom, by what.
      const given = query instanceof ProblemError ? [] : params.filter((p) => query[p] !== undefined);
      const ms = performance.now() - lookup.started;
      admission.account(lookup, operation, given, lookup.matched, lookup.status, Date.now(), ms);
    }
    this.deps.turns.hold(lookup);
  }

  /** After a reply is written: request metrics, and the access log line when asked for. */
  sent(lookup: Lookup): void {
    const ms = performance.now() - lookup.started;
    this.deps.requests.served(lookup.req.method ?? 'GET', lookup.route, lookup.status, ms, lookup.id);
  }
}
