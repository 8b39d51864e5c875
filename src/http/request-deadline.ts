// The bound on receiving a whole request: a client that trickles its body cannot hold a connection. Every body
// is bound, whatever its path, from before routing: only a bulk stream, once routed and admitted with a live
// key, is released from it (bulk-stream.ts), and then held to an idle bound instead. Node's own
// requestTimeout would cut such a stream too, whose body the server reads at its key's rate (for hours, at
// a low one), so the bound is kept here, where a stream can be told apart.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../errors.js';
import { hasBody } from './body.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import { requestId } from './request-id.js';

/** The clock on each request whose body is still to come. */
const deadlines = new WeakMap<IncomingMessage, NodeJS.Timeout>();

/**
 * Starts the clock on a request's body, when it has one: if the body has not all arrived within `ms`, the
 * client gets a 408 problem (unless it was answered already) and the connection is closed. A request
 * without a body (every lookup) costs two header reads.
 */
export function watchRequestBody(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (ms <= 0 || !hasBody(req)) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (!res.headersSent) {
      const problem = new ProblemError('request_timeout', `The request was not received within ${ms} ms.`);
      const id = requestId(req.headers['x-request-id']);
      const body = problemDocument(problem, id);
      res.writeHead(408, {
        'content-type': PROBLEM_TYPE,
        connection: 'close',
        'content-length': body.length,
        'x-request-id': id,
        'x-content-type-options': 'nosniff',
      });
      res.end(body);
    }
    req.socket.destroySoon();
  }, ms);
  timer.unref();
  deadlines.set(req, timer);
  const stop = () => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
}

/** Releases an admitted bulk stream from the whole-body bound: its own idle bound holds it instead. */
export function releaseBodyDeadline(req: IncomingMessage): void {
  clearTimeout(deadlines.get(req));
  deadlines.delete(req);
}
