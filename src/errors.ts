// Every problem the service can answer with: stable code, status and title, declared once (contract §5).

export const Problems = {
  missing_identifier: { status: 400, title: 'No identifier given' },
  invalid_parameter: { status: 400, title: 'Invalid parameter' },
  unknown_parameter: { status: 400, title: 'Unknown parameter' },
  invalid_body: { status: 400, title: 'Invalid request body' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  quota_exceeded: { status: 402, title: 'Monthly quota exceeded' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  ambiguous_match: { status: 409, title: 'Ambiguous match' },
  content_too_large: { status: 413, title: 'Content too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof Problems;

/** The RFC 9457 `type` URI of a problem code. */
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
