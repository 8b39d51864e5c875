// Renders any error as an application/problem+json reply; no stack trace, SQL or token ever reaches it.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ProblemCode, ProblemError, Problems, problemType } from '../errors.js';
import { StoreUnavailableError } from '../store/unavailable.js';

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Retry-After for a store that has gone away: the pools reconnect within seconds. */
const UNAVAILABLE_RETRY_SECONDS = '2';

/** Maps any thrown value to a ProblemError; unexpected errors become a bare 500. */
export function toProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ProblemError(
      'unavailable',
      'The data store is unavailable; retry shortly.',
      {},
      {
        'retry-after': UNAVAILABLE_RETRY_SECONDS,
      },
    );
  }
  const status = (error as FastifyError | undefined)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own client errors (bad URL encoding, too long a URL, …): their messages hold no secrets.
    const code = CODE_BY_STATUS[status] ?? 'invalid_parameter';
    return Object.assign(new ProblemError(code, (error as Error).message), { status });
  }
  return new ProblemError(
    'internal',
    'An unexpected error occurred; it has been logged with the request id.',
  );
}

/** The problem document's JSON text: the RFC 9457 members, `code`, `request_id`, then the extensions. */
export function problemDocument(problem: ProblemError, requestId: string): string {
  return JSON.stringify({
    type: problemType(problem.code),
    title: Problems[problem.code].title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
    ...problem.extensions,
  });
}

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Sends a problem document, with its extra headers, as a pre-serialised string. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: ProblemError,
): FastifyReply {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type(PROBLEM_TYPE)
    .send(problemDocument(problem, request.id));
}

/** What a client is told of an error Fastify answers before routing, without quoting the request. */
export function frameworkErrorDetail(error: FastifyError): string {
  if (error.code === 'FST_ERR_BAD_URL') return 'The URL is not valid: it holds a malformed percent-encoding.';
  return 'The request could not be read.';
}
