// The bound on receiving a whole request: a client that trickles its body cannot hold a connection. Node's own
// requestTimeout would also cut a bulk stream, whose body the server reads at its key's rate (for hours, at a
// low one), so the bound is kept here, where a stream can be told apart.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../errors.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import { requestId } from './request-id.js';

/** A bulk stream: an NDJSON body to a bulk path, paced by the server and bounded by its line count. */
function isStream(req: IncomingMessage): boolean {
  const type = req.headers['content-type'] ?? '';
  return type.startsWith('application/x-ndjson') && (req.url ?? '').includes('/bulk');
}

/** True when the request has a body still to come. */
const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * Starts the clock on a request's body, when it has one and is not a bulk stream: if the body has not all
 * arrived within `ms`, the client gets a 408 problem and the connection is closed. A request without a body
 * (every lookup) costs two header reads.
 */
export function watchRequestBody(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (ms <= 0 || !hasBody(req) || isStream(req)) return;
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
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
}
