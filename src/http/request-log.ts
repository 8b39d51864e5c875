// What the server writes down of each request, in one place for every route, the fast lookup path
// included: its metrics, its access log line, and the error behind a failure. Routes are named by their
// pattern, never their URL: a query string holds e-mail addresses, which are personal data.
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics.js';

export class RequestLog {
  constructor(
    private readonly metrics: Metrics,
    readonly log: FastifyBaseLogger,
    /** One log line per request: method, route, status, duration, request id. */
    private readonly accessLog: boolean,
  ) {}

  /** After a reply is written: the request's metrics, and its access log line when asked for. */
  served(method: string, route: string, status: number, ms: number, reqId: string): void {
    this.metrics.http.record(method, route, status, ms / 1000);
    if (this.accessLog) this.log.info({ reqId, method, route, status, ms }, 'request');
  }

  /** A request the server failed (a 5xx, or a reply it could not write): the error, on its route. */
  failed(error: unknown, route: string | undefined, reqId: string, what = 'request failed'): void {
    this.log.error({ err: error, route, reqId }, what);
  }
}
