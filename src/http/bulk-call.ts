// One bulk request in flight, JSON or stream: what admission learns of it, its headers, the accounting of
// its items, and the whole-request problem when it fails — audited, and its reply held for the turn's
// commit as a lookup's is.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { outcomeOf } from '../accounting/usage-outcome.js';
import { ProblemError, toProblem } from '../errors.js';
import type { QuotaCounter, QuotaTicket } from '../limits/quota.js';
import type { LimitDecision, RateLimiter } from '../limits/rate-limit.js';
import { type BulkOutcome, disclosedIds, statusOf } from '../lookup/bulk.js';
import type { BulkRequest } from '../lookup/bulk-request.js';
import type { FieldCatalogue, FieldTree } from '../lookup/fields.js';
import type { LookupOperation } from '../lookup/operations.js';
import type { LookupOutcome, Metrics } from '../metrics.js';
import type { ApiKey } from '../store/keys.js';
import type { MaybePromise } from '../store/maybe-promise.js';
import type { Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { Admission, Admittee } from './admission.js';
import { lengthOf, release } from './bytes.js';
import { COMPRESS_FROM_BYTES, compressBody } from './compress-body.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import type { TurnRelease } from './release.js';
import type { RequestLog } from './request-log.js';

export interface BulkDeps {
  store: Store;
  admission: Admission;
  /** Paces a stream at its key's rate once admitted. */
  limiter: RateLimiter;
  /** Met by the items, batch by batch. */
  quota: QuotaCounter;
  /** Lookups counted by outcome. */
  metrics: Metrics;
  turns: TurnRelease;
  requests: RequestLog;
  /** A stream with nothing read or written for this long is ended with a 408 line and closed, ms. */
  streamIdleMs: number;
}

/** A bulk operation: the lookup its items are, and the fields its records have. */
export interface BulkOperation {
  lookup: LookupOperation;
  fields: FieldCatalogue;
}

type Headers = Record<string, string | number | readonly string[]>;

export class BulkCall implements Admittee {
  readonly res: ServerResponse;
  keyId: string | undefined;
  key: ApiKey | undefined;
  /** Items meet the quota batch by batch, never the request as a whole. */
  readonly ticket: QuotaTicket | null = null;
  /** The response headers so far: the request id and CORS headers Fastify's hooks set, then RateLimit. */
  readonly headers: Headers;
  /** Once the response has begun (a stream), a failure can no longer be a status line. */
  started = false;
  /** Set once the body has been read to its end. */
  bodyRead = false;
  /** What the body is, by its Content-Type: a JSON list, or an NDJSON stream. */
  kind: 'json' | 'stream' | undefined;
  /** A JSON bulk's items, once read. */
  bulk: BulkRequest | undefined;
  /** A stream's selection of fields (its query's `fields`), once checked. */
  selection: FieldTree | undefined;

  constructor(
    readonly deps: BulkDeps,
    readonly request: FastifyRequest,
    reply: FastifyReply,
    readonly operation: BulkOperation,
  ) {
    this.headers = { ...(reply.getHeaders() as Headers) };
    this.res = reply.raw;
  }

  get id(): string {
    return this.request.id;
  }

  get req(): IncomingMessage {
    return this.request.raw;
  }

  /** The route, as metrics and logs name it. */
  get route(): string | undefined {
    return this.request.routeOptions.url;
  }

  /** A response header, until the response has begun. */
  header(name: string, value: string): void {
    if (!this.started) this.headers[name] = value;
  }

  /** Takes `cost` tokens from the admitted key's bucket when it holds one: a stream's pace. */
  take(cost: number): MaybePromise<LimitDecision> {
    const key = this.key!;
    return this.deps.limiter.take(key.id, key.rate, cost);
  }

  /** True once the client has gone: nothing more can be sent. */
  get gone(): boolean {
    return this.res.destroyed || this.req.socket.destroyed;
  }

  /**
   * The selection of fields for every record: `fields` in the query (the stream's only place for it) or in
   * a JSON body, not both. The query takes no other parameter.
   */
  fieldSelection(inBody: string[] | undefined): FieldTree | undefined {
    const query = this.request.query as Record<string, unknown>;
    for (const name in query) {
      if (name !== 'fields') {
        throw new ProblemError(
          'unknown_parameter',
          `Unknown parameter "${name.slice(0, 64)}"; a bulk's query accepts only fields (the identifiers go in the body).`,
          { parameter: name.slice(0, 64), accepted: ['fields'] },
        );
      }
    }
    const inQuery = query.fields;
    if (inQuery !== undefined && typeof inQuery !== 'string') {
      throw new ProblemError('invalid_parameter', 'fields is given more than once.', { parameter: 'fields' });
    }
    if (inQuery !== undefined && inBody !== undefined) {
      throw new ProblemError(
        'invalid_parameter',
        'fields is given in both the query and the body; give it once.',
        {
          parameter: 'fields',
        },
      );
    }
    const given = inBody ?? inQuery;
    return given === undefined ? undefined : this.operation.fields.parse(given);
  }

  /** Audits and meters a refused request as one refused lookup of this operation. */
  account(status: number, now = Date.now()): void {
    const outcome = outcomeOf(status);
    if (outcome !== 'failed') this.deps.metrics.lookups.inc(this.operation.lookup.entity, outcome);
    this.append([], status, [], now);
  }

  /** Audits and meters each item of a batch as a single lookup of this operation. */
  accountItems(items: ReadonlyArray<{ given: string[] }>, outcomes: readonly BulkOutcome[]): void {
    const now = Date.now();
    const counts = { matched: 0, not_found: 0, ambiguous: 0, rejected: 0 };
    for (let i = 0; i < outcomes.length; i++) {
      const outcome = outcomes[i]!;
      const status = statusOf(outcome);
      counts[outcomeOf(status) as LookupOutcome]++;
      this.append(items[i]!.given, status, disclosedIds(outcome), now);
    }
    const { entity } = this.operation.lookup;
    for (const [outcome, n] of Object.entries(counts)) {
      if (n > 0) this.deps.metrics.lookups.inc(entity, outcome as LookupOutcome, n);
    }
  }

  private append(params: string[], status: number, matched: string[], at: number): void {
    this.deps.admission.account(this, this.operation.lookup.operation, params, matched, status, at);
  }

  /** Sends a whole response once the turn's accounting is committed; a 503 instead if it could not be. */
  reply(status: number, type: string, body: Buffer[]): void {
    const length = lengthOf(body);
    const headers = { ...this.headers, 'content-type': type, vary: 'Accept-Encoding' };
    const hold = (parts: Buffer[], more: Headers = {}) =>
      this.deps.turns.hold({
        keyed: this.keyId !== undefined,
        send: () => this.write(status, { ...headers, ...more }, parts),
        refuse: () => this.refuse(),
      });
    if (length < COMPRESS_FROM_BYTES || !this.req.headers['accept-encoding']) {
      hold(body);
      return;
    }
    compressBody(body, length, this.req.headers['accept-encoding']).then(
      (compressed) => {
        if (compressed === undefined) {
          hold(body);
          return;
        }
        release(body);
        hold([compressed.body], { 'content-encoding': compressed.encoding });
      },
      // Not compressed after all: sent as it is.
      (error: unknown) => {
        this.deps.requests.log.warn({ err: error, reqId: this.id }, 'compressing a bulk answer failed');
        hold(body);
      },
    );
  }

  /**
   * Answers the whole request with a problem, audited as one refused lookup when the key is known. A 401
   * is charged to the client's address once sent (guard.ts): the address is refused from its next request.
   */
  fail(error: unknown): void {
    const problem = toProblem(error);
    if (problem.status >= 500) this.deps.requests.failed(error, this.route, this.id);
    this.account(problem.status);
    const headers = { ...this.headers, ...problem.headers, 'content-type': PROBLEM_TYPE };
    this.deps.turns.hold({
      keyed: this.keyId !== undefined,
      send: () => this.write(problem.status, headers, problemDocument(problem, this.id)),
      refuse: () => this.refuse(),
    });
  }

  /** 503: the records of this reply could not be kept, so it is not sent. */
  private refuse(): void {
    const problem = toProblem(new StoreUnavailableError());
    const headers = { ...this.headers, ...problem.headers, 'content-type': PROBLEM_TYPE };
    this.write(problem.status, headers, problemDocument(problem, this.id));
  }

  /**
   * Writes a whole response. When the request's body was not read to its end (refused before it, or too
   * large), the connection is closed after it rather than reading what is left.
   */
  private write(status: number, headers: Headers, body: string | Buffer[]): void {
    const { res, req } = this;
    if (res.headersSent || res.destroyed) return;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : lengthOf(body);
    const unread =
      !this.bodyRead &&
      (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0);
    const close = unread ? { connection: 'close' } : {};
    res.writeHead(status, { ...headers, ...close, 'content-length': length });
    if (typeof body === 'string') {
      res.end(body);
      return;
    }
    // Written out once finished: the segments go back for reuse.
    res.once('finish', () => release(body));
    res.cork();
    for (const view of body) res.write(view);
    res.end();
  }
}
