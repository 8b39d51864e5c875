// Renders a problem as an application/problem+json reply; no stack trace, SQL or token ever reaches it.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, Problems, problemType } from '../errors.js';

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
export function frameworkProblem(error: FastifyError): ProblemError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new ProblemError('uri_too_long', 'A segment of the path is too long.');
  if (error.code === 'FST_ERR_BAD_URL')
    return new ProblemError(
      'invalid_parameter',
      'The URL is not valid: it holds a malformed percent-encoding.',
    );
  return new ProblemError('invalid_parameter', 'The request could not be read.');
}
