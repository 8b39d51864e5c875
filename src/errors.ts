// Every problem the service can answer with: stable code, status and title, declared once (contract §5),
// and what any error thrown on the way to an answer becomes.
import type { FastifyError } from 'fastify';

export const Problems = {
  missing_identifier: { status: 400, title: 'No identifier given' },
  missing_filter: { status: 400, title: 'No filter given' },
  invalid_body: { status: 400, title: 'Invalid request body' },
  malformed_request: { status: 400, title: 'Malformed request' },
  invalid_parameter: { status: 400, title: 'Invalid parameter' },
  unknown_parameter: { status: 400, title: 'Unknown parameter' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  quota_exceeded: { status: 402, title: 'Monthly quota exceeded' },
  forbidden: { status: 403, title: 'Forbidden' },
  origin_mismatch: { status: 403, title: 'Origin not this server' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  ambiguous_match: { status: 409, title: 'Ambiguous match' },
  gone: { status: 410, title: 'Gone' },
  key_revoked: { status: 409, title: 'Key revoked' },
  list_not_ready: { status: 409, title: 'List not ready' },
  payload_too_large: { status: 413, title: 'Request too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof Problems;

/** The RFC 9457 `type` URI of a problem code. */
/** An error's message, or what was thrown when it is not an Error: the reason a status or a reply gives. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const problemType = (code: ProblemCode) => `https://enrich.dev/problems/${code.replaceAll('_', '-')}`;

/**
 * A failure that maps to a problem document. Thrown by pure code (normalisation, resolution, auth)
 * and rendered by the HTTP error handler; `extensions` become extra members of the document and
 * `headers` extra response headers.
 * @example throw new ProblemError('invalid_parameter', 'abn must be 11 digits')
 */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = Problems[code].status;
  }
}

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
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

/**
 * Thrown by a store when its database cannot be reached. The message names the cause for logs and the
 * CLI (it may hold a host and port, never a password); HTTP responses use their own wording.
 */
export class StoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    const reason = describe(options?.cause);
    super(`the data store is unavailable${reason ? `: ${reason}` : ''}`, options);
    this.name = 'StoreUnavailableError';
  }
}

// Connecting to "localhost" tries each address and fails with an AggregateError whose own message is empty.
function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return '';
  if (cause.message || !(cause instanceof AggregateError)) return cause.message;
  return cause.errors.map(describe).join('; ');
}
