// Request bodies: none where a route takes none, and a small default size where one does.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors.js';

/** The largest body a route accepts unless it sets its own limit (Fastify's `bodyLimit`), bytes. */
export const BODY_LIMIT = 64 * 1024;

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/** True for the methods whose routes here take no body. */
export const takesNoBody = (method: string) => BODILESS.has(method);

/** True when a request carries a body: a non-zero Content-Length, or any Transfer-Encoding. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The 413 for a body sent to a route that takes none. The connection is closed after it, rather than
 * read to the end of a body nobody wants.
 */
export function unwantedBody(req: IncomingMessage, path: string): ProblemError {
  return new ProblemError(
    'payload_too_large',
    `${req.method} ${path} takes no request body.`,
    {},
    { connection: 'close' },
  );
}
