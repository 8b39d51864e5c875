// What Node's HTTP parser refuses before any request exists (headers too large, a malformed request line,
// headers sent too slowly) is answered as every other error is: a problem document with a request id.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ProblemError } from '../errors.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import { requestId } from './request-id.js';

/** The problem for a parser error's code: Node's own names (`HPE_…` from llhttp, `ERR_HTTP_…`). */
export function clientProblem(code: string | undefined): ProblemError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ProblemError('request_timeout', 'The request headers were not received in time.');
  if (code === 'HPE_HEADER_OVERFLOW')
    return new ProblemError('headers_too_large', 'The request line and headers are larger than 16 KiB.');
  return new ProblemError('malformed_request', 'The request is not valid HTTP/1.1.');
}

/** The whole HTTP response carrying `problem`, as bytes for a socket; the connection closes after it. */
export function rawProblemResponse(problem: ProblemError, id: string): string {
  const body = problemDocument(problem, id);
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
    `Content-Type: ${PROBLEM_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${id}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Node's private link from a socket to the response it is writing, if any (as its own handler reads it). */
type ParsingSocket = Socket & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * Fastify's `clientErrorHandler`: writes the problem on the socket (unless a response is already under way,
 * or the client is gone) and closes it. Nothing of the request is quoted: it may hold a query.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && !(socket as ParsingSocket)._httpMessage?.headersSent) {
    socket.write(rawProblemResponse(clientProblem(error.code), requestId(undefined)));
  }
  socket.destroySoon();
}
