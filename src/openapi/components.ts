// The OpenAPI document's shared parts: every response header, and the problem responses routes refer to.
import type { FastifyError } from 'fastify';
import { type ProblemCode, Problems, problemType } from '../errors.js';
import { clientProblem } from '../http/client-error.js';
import { MAX_LOOKUP_BODY } from '../http/lookup-body.js';
import { frameworkProblem } from '../http/problem.js';
import { PERSON_PARAMS } from '../identifiers/params.js';

/** An OpenAPI reference to a component. */
export interface Ref {
  $ref: string;
}

const integer = { type: 'integer', minimum: 0 } as const;

/** Every header the service sends that a client may act on, keyed by component name. */
export const HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id, also the problem's `request_id`: the caller's own X-Request-Id when it is 1 to 64 " +
      'letters, digits, `.`, `_` or `-`, else one the server made up',
    required: true,
    schema: { type: 'string', examples: ['k3j9x2-1a'] },
  },
  ETag: {
    description:
      "The record's entity tag: sent back as If-None-Match, it gets 304 while the record is unchanged",
    schema: { type: 'string', examples: ['"q5mE0Hd1v9kC3xYtL2aB7w"'] },
  },
  'Enrich-Matched-By': {
    description:
      'The parameters that found the record, comma-separated, in the order the operation lists them',
    schema: { type: 'string', examples: ['ln_url, work_email'] },
  },
  'Enrich-Match-Likelihood': {
    description:
      'Sent when the person was matched by name and company (no identifier given matched): how likely, 1–10, ' +
      'the record is the one asked for. 10 is the exact first name at a company given by id, domain or LinkedIn; ' +
      '8 a short form (Bob for Robert), 7 an initial; each 2 less when the company was given by name. ' +
      'Matches under `min_likelihood` (default 6) are 404, two equally good ones 409',
    schema: { ...integer, minimum: 1, maximum: 10, examples: [10] },
  },
  RateLimit: {
    description:
      "The key's token bucket after this request (IETF httpapi rate-limit draft): `r` requests left, " +
      '`t` seconds until the bucket is full again. On every response to a request whose key was authenticated',
    schema: { type: 'string', examples: ['"default";r=49;t=1'] },
  },
  'RateLimit-Policy': {
    description: "The key's rate limit: `q` requests per `w` seconds, with a burst of one second's worth",
    schema: { type: 'string', examples: ['"default";q=50;w=1'] },
  },
  'Cache-Control': {
    description:
      "`private, no-store` on every response of an operation that takes a token: it holds the key holder's " +
      'data, for no cache to keep (a client may still revalidate a record with `If-None-Match`)',
    schema: { type: 'string', examples: ['private, no-store'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    schema: { ...integer, examples: [1] },
  },
  'Enrich-Quota-Remaining': {
    description: "Matched lookups left in the key's monthly quota; sent only for keys that have a quota",
    schema: { ...integer, examples: [9500] },
  },
  'Enrich-Search-Quota-Remaining': {
    description:
      "Search results left in the key's monthly search allowance; sent only for keys that have one",
    schema: { ...integer, examples: [4990] },
  },
  'Enrich-Total': {
    description:
      'How many records match the search, counted exactly up to 10,000 (those found, when the search stopped at its budget of work)',
    schema: { ...integer, examples: [734] },
  },
  'Enrich-Total-Relation': {
    description:
      '`eq` when `Enrich-Total` is exact, `gte` when more may match than it says: past 10,000, or when the search stopped at its budget of work',
    schema: { type: 'string', examples: ['eq'] },
  },
  'Enrich-Next-After': {
    description: "The audit page's `next_after`, when more entries follow: the next page's `after`",
    schema: { type: 'string', minLength: 1 },
  },
  'WWW-Authenticate': {
    description:
      'The authentication scheme to use: `Bearer`, with `error="invalid_token"` when one was refused',
    schema: { type: 'string', examples: ['Bearer realm="enrich", error="invalid_token"'] },
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

export const headerRef = (name: HeaderName): Ref => ({ $ref: `#/components/headers/${name}` });
export const schemaRef = (name: string): Ref => ({ $ref: `#/components/schemas/${name}` });

/** A response's `headers` member: each header by reference, under its own name. */
export const headers = (...names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, headerRef(name)]));

/** The headers a keyed request's response carries once its key has been through the rate limit. */
export const KEYED: HeaderName[] = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Cache-Control'];

type Example = { detail: string } & Record<string, unknown>;

/** A problem response: its headers, and one example document for each code it may carry. */
const problem = (
  description: string,
  names: HeaderName[],
  examples: Partial<Record<ProblemCode, Example>>,
) => ({
  description,
  headers: headers(...names),
  content: {
    'application/problem+json': {
      schema: schemaRef('Problem'),
      examples: Object.fromEntries(
        Object.entries(examples).map(([code, { detail, ...members }]) => {
          const { status, title } = Problems[code as ProblemCode];
          const value = { type: problemType(code as ProblemCode), title, status, detail, code };
          return [code, { value: { ...value, request_id: 'k3j9x2-1a', ...members } }];
        }),
      ),
    },
  },
});

/** The 400s a lookup's parameters may get, however they were sent. */
const parameterProblems = {
  missing_identifier: {
    detail: `Give at least one identifier: ${PERSON_PARAMS.join(', ')}.`,
    accepted: PERSON_PARAMS,
  },
  unknown_parameter: {
    detail: `Unknown parameter "email"; accepted: ${PERSON_PARAMS.join(', ')}.`,
    parameter: 'email',
    accepted: PERSON_PARAMS,
  },
  invalid_parameter: {
    detail: 'work_email: not an e-mail address (expected name@domain.tld)',
    parameter: 'work_email',
  },
};

/**
 * Marks a query parameter's schema: its example is sent when the operation is tried from a reference page
 * (the document carries it as a named example Scalar enables, `x-disabled: false`).
 */
export const TRY_IT = 'x-try-it';

/** Responses shared by several operations, keyed by component name. */
export const RESPONSES = {
  BadRequest: problem('The query is not one the operation accepts', KEYED, parameterProblems),
  BadLookupBody: problem('The body is not valid JSON, or not parameters the operation accepts', KEYED, {
    invalid_body: { detail: 'The body is not valid JSON (UTF-8).' },
    ...parameterProblems,
  }),
  ContentTooLarge: problem('The body is larger than the operation takes', KEYED, {
    payload_too_large: { detail: `The body is larger than ${MAX_LOOKUP_BODY} bytes.` },
  }),
  LookupUnsupportedMediaType: problem('The body is not `application/json`', KEYED, {
    unsupported_media_type: {
      detail: 'Send the parameters as a JSON object (Content-Type: application/json).',
    },
  }),
  SearchBadRequest: problem('The search is not one the operation accepts', KEYED, {
    missing_filter: {
      detail: 'Give at least one filter: companyId, position, seniority, department, selectedCountry.',
      accepted: ['companyId', 'position', 'seniority', 'department', 'selectedCountry'],
    },
    unknown_parameter: {
      detail:
        'Unknown parameter "title"; accepted: companyId, position, seniority, department, selectedCountry, from, size.',
      parameter: 'title',
      accepted: ['companyId', 'position', 'seniority', 'department', 'selectedCountry', 'from', 'size'],
    },
    invalid_parameter: { detail: 'seniority must be a whole number from 1 to 7.', parameter: 'seniority' },
  }),
  SearchQuotaExceeded: problem(
    "The key's monthly search allowance (results returned) is used up: do not retry before the month turns",
    [...KEYED, 'Enrich-Search-Quota-Remaining'],
    {
      quota_exceeded: {
        detail: "This key's search allowance of 5000 results for 2026-11 is used up.",
        search_quota: 5000,
      },
    },
  ),
  BadBulkRequest: problem(
    'The body is not JSON, or not of the bulk shape (`path` says where), or the query is not one a bulk accepts',
    KEYED,
    {
      invalid_body: {
        detail: '$.requests[3].params: params must be an object of parameter names and values.',
        path: '$.requests[3].params',
      },
      unknown_parameter: {
        detail:
          'Unknown parameter "id"; a bulk\'s query accepts only fields (the identifiers go in the body).',
        parameter: 'id',
        accepted: ['fields'],
      },
      invalid_parameter: {
        detail: 'Unknown field "nmae" in fields; valid fields: id, name, …',
        parameter: 'fields',
      },
    },
  ),
  PayloadTooLarge: problem(
    'More than 1,000 items, or a body over 4 MiB: send several requests, or an NDJSON stream',
    KEYED,
    {
      payload_too_large: {
        detail:
          'The request holds 1,200 items; a request holds at most 1,000 items (send more as several requests, or as an NDJSON stream).',
        max_items: 1000,
      },
    },
  ),
  BulkUnsupportedMediaType: problem(
    'The body is neither `application/json` nor `application/x-ndjson`, or is compressed',
    KEYED,
    {
      unsupported_media_type: {
        detail:
          'Content-Type "text/csv" is not accepted: send application/json (1 to 1,000 items) or application/x-ndjson (a stream, one item per line).',
        accepted: ['application/json', 'application/x-ndjson'],
      },
    },
  ),
  WatchlistBadRequest: problem(
    'The body or query is not one the operation accepts (`path` says where)',
    KEYED,
    {
      invalid_body: {
        detail: '$.entries[2]: an entry gives exactly one of "person" and "company".',
        path: '$.entries[2]',
      },
      invalid_parameter: { detail: 'limit must be a whole number from 1 to 1000.', parameter: 'limit' },
    },
  ),
  ListNotFound: problem("The key has no list of that id: another key's is not seen", KEYED, {
    not_found: { detail: 'This key has no list ls_4hT9xQ2mPz8a.' },
  }),
  ListNotReady: problem('The list has not finished matching (or failed): its result is not there', KEYED, {
    list_not_ready: {
      detail: 'The list ls_4hT9xQ2mPz8a is running: its result is ready once it is done.',
      list_status: 'running',
    },
  }),
  ListBadRequest: problem('The upload or the query cannot be matched as given', KEYED, {
    invalid_body: {
      detail:
        'The list cannot be matched: no column gives an identifier to match people by; headers found: "Name".',
    },
    invalid_parameter: { detail: 'entity must be people or companies.', parameter: 'entity' },
  }),
  WatchlistNotFound: problem(
    "The key has no watchlist (or entry) of that id: another key's is not seen",
    KEYED,
    {
      not_found: { detail: 'This key has no watchlist wl_4hT9xQ2mPz8a.' },
    },
  ),
  WatchlistTooLarge: problem(
    'More than 1,000 entries in a JSON body (send NDJSON), or more than the watchlist may hold (1,000,000)',
    KEYED,
    {
      payload_too_large: {
        detail: '$.entries: give 1 to 1,000 entries (send more as application/x-ndjson).',
        max_items: 1000,
      },
    },
  ),
  Unauthorized: problem(
    'No token, or one that is not (or no longer) valid',
    ['X-Request-Id', 'WWW-Authenticate', 'Cache-Control'],
    { unauthorized: { detail: 'The bearer token is not recognised.' } },
  ),
  QuotaExceeded: problem(
    "The key's monthly quota of matched lookups is used up: do not retry before the month turns",
    [...KEYED, 'Enrich-Quota-Remaining'],
    { quota_exceeded: { detail: "This key's quota of 10000 matched lookups for 2026-11 is used up." } },
  ),
  Forbidden: problem('The key lacks the scope the operation needs', KEYED, {
    forbidden: { detail: 'This key lacks the people:read scope.', required_scope: 'people:read' },
  }),
  NotFound: problem('No record matches any of the given identifiers', [...KEYED, 'Enrich-Quota-Remaining'], {
    not_found: { detail: 'No person matches the given identifiers.' },
  }),
  AmbiguousMatch: problem(
    'The identifiers match more than one record: `matches` says which parameter matched which ids',
    [...KEYED, 'Enrich-Quota-Remaining'],
    {
      ambiguous_match: {
        detail: 'The identifiers match 2 different records; give one that identifies a single record.',
        matches: { work_email: ['fp000000000001'], ln_url: ['fp000000000002'] },
      },
    },
  ),
  Gone: problem('The cursor is older than the change log keeps: start again without `after`', KEYED, {
    gone: {
      detail:
        'The cursor is older than the change log keeps (ENRICH_CHANGES_RETENTION_DAYS): the events after it have been pruned. Read again without `after` to start at the oldest event kept.',
      oldest_event: 'evt_0000000000004242',
    },
  }),
  RateLimited: problem(
    "Over the key's rate limit, or, for requests without a valid token, over the client address's (`RateLimit` " +
      "and `RateLimit-Policy` then tell the address's limit, with `r=0`): retry after `Retry-After` seconds",
    [...KEYED, 'Retry-After'],
    {
      rate_limited: { detail: 'This key allows 50 requests per second.' },
    },
  ),
  AdminBadRequest: problem(
    'A parameter or member the admin operation does not take, or a value it cannot use',
    KEYED,
    {
      invalid_parameter: {
        detail: 'granularity: expected one of minute, hour, day',
        parameter: 'granularity',
      },
      unknown_parameter: {
        detail: 'Unknown parameter "since"; accepted: key, from, to, granularity.',
        parameter: 'since',
        accepted: ['key', 'from', 'to', 'granularity'],
      },
      invalid_body: { detail: 'rate: expected a whole number ≥ 1', parameter: 'rate' },
    },
  ),
  AdminForbidden: problem('The key lacks the admin scope', KEYED, {
    forbidden: { detail: 'This key lacks the admin scope.', required_scope: 'admin' },
  }),
  KeyNotFound: problem('No key has this id', KEYED, {
    not_found: { detail: 'There is no key key_7GdK2mQx9a.' },
  }),
  KeyRevoked: problem('The key is revoked: its settings and token no longer change', KEYED, {
    key_revoked: { detail: 'Key key_7GdK2mQx9a is revoked: it cannot be rotated.' },
  }),
  // A failure of a keyed operation carries what its request had been given by then: Cache-Control from the
  // start, the rate limit's headers once its key has been through it.
  InternalError: problem('A bug: it has been logged with the request id', KEYED, {
    internal: { detail: 'An unexpected error occurred; it has been logged with the request id.' },
  }),
  Unavailable: problem(
    'The data store (or the shared rate limits) cannot be reached: retry after `Retry-After` seconds',
    [...KEYED, 'Retry-After'],
    { unavailable: { detail: 'The data store is unavailable; retry shortly.' } },
  ),
  WebhookBadRequest: problem('The body or query is not one the operation accepts', KEYED, {
    invalid_parameter: {
      detail: 'url must not name a loopback, private, link-local, multicast or unspecified address.',
    },
  }),
  WebhookNotFound: problem("No such endpoint, delivery or watchlist of the calling key's", KEYED, {
    not_found: { detail: 'There is no webhook endpoint wh_4kq2m9x7c1d8e3f5a0b2.' },
  }),
  NotModified: {
    description: 'The record still has the entity tag given in If-None-Match: no body',
    headers: headers('ETag', 'Enrich-Matched-By', ...KEYED, 'Enrich-Quota-Remaining'),
  },
  UnreadableRequest: problem(
    'The HTTP layer could not read the request and answered before any route, closing the connection: ' +
      'malformed (400), sent too slowly (408), a path segment over 2,048 characters (414), headers over 16 KiB (431)',
    ['X-Request-Id'],
    Object.fromEntries(
      [
        clientProblem('HPE_INVALID_METHOD'),
        clientProblem('ERR_HTTP_REQUEST_TIMEOUT'),
        frameworkProblem({ code: 'FST_ERR_MAX_PARAM_LENGTH' } as FastifyError),
        clientProblem('HPE_HEADER_OVERFLOW'),
      ].map(({ code, detail }) => [code, { detail }]),
    ),
  ),
};

export type ResponseName = keyof typeof RESPONSES;

export const responseRef = (name: ResponseName): Ref => ({ $ref: `#/components/responses/${name}` });

/** The problems any keyed operation may answer, whatever it does: refusals of admission, and failures. */
export const keyedProblems = () => ({
  401: responseRef('Unauthorized'),
  403: responseRef('Forbidden'),
  429: responseRef('RateLimited'),
  '4XX': responseRef('UnreadableRequest'),
  500: responseRef('InternalError'),
  503: responseRef('Unavailable'),
});

/** The responses of an operation anyone may call: what it answers, and the HTTP layer's own 4xx. */
export const publicResponses = (ok: object, more: Record<string, object> = {}) => ({
  200: ok,
  '4XX': responseRef('UnreadableRequest'),
  ...more,
});
