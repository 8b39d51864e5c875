// The problem document of RFC 9457 with this service's stable `code` and every extension member (contract §5).
import { type Static, Type } from '@sinclair/typebox';
import { type ProblemCode, Problems } from '../errors.js';
import { ALL_SCOPES, type Scope } from '../vocabulary/operations.js';

const names = (description: string) => Type.Array(Type.String(), { description });

export const Problem = Type.Object(
  {
    type: Type.String({
      format: 'uri',
      description: 'The problem type: https://enrich.dev/problems/ and the code with hyphens',
    }),
    title: Type.String({ description: "The problem type's short, fixed summary" }),
    status: Type.Integer({ description: 'The HTTP status code of the response' }),
    detail: Type.String({ description: 'What went wrong with this request, for people to read' }),
    // An enum rather than a union of constants: generated clients get one union of string literals.
    code: Type.Unsafe<ProblemCode>({
      type: 'string',
      enum: Object.keys(Problems),
      description: 'Stable, machine-readable problem code',
    }),
    request_id: Type.String({ description: 'The id of the request, also sent as X-Request-Id' }),
    parameter: Type.Optional(
      Type.String({
        description:
          '`invalid_parameter` and `unknown_parameter`: the parameter at fault (of the query, or of a POST body)',
      }),
    ),
    accepted: Type.Optional(
      names(
        '`missing_identifier` and `unknown_parameter`: the parameters the operation accepts; ' +
          '`invalid_parameter` of `fields`: every field path it may name; ' +
          '`unsupported_media_type`: the content types it accepts',
      ),
    ),
    path: Type.Optional(
      Type.String({
        description: '`invalid_body`: the JSON path of the value at fault, e.g. `$.requests[3].params`',
      }),
    ),
    line: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          '`invalid_body`: the line at fault (of an NDJSON stream, or of a JSON body that is not JSON)',
      }),
    ),
    column: Type.Optional(
      Type.Integer({ minimum: 1, description: '`invalid_body`: the column where the text stops being JSON' }),
    ),
    position: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: '`invalid_body`: the offset, in characters, where the text stops being JSON',
      }),
    ),
    max_items: Type.Optional(
      Type.Integer({ minimum: 1, description: '`payload_too_large`: the most items one request may hold' }),
    ),
    max_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: '`payload_too_large` and `invalid_body`: the largest body (or line) accepted, in bytes',
      }),
    ),
    field: Type.Optional(
      Type.String({ description: '`invalid_parameter` of `fields`: the path that names no field' }),
    ),
    matches: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.Array(Type.String()),
          description:
            '`ambiguous_match`: for each parameter that matched, the ids of the records it matched (at most 10)',
        },
      ),
    ),
    oldest_event: Type.Optional(
      Type.String({ description: '`gone`: the id of the oldest event the change log still keeps' }),
    ),
    search_quota: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "`quota_exceeded` of a search: the key's monthly search allowance, in results",
      }),
    ),
    window: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          '`invalid_parameter` of `cursor` or `from`: the most results one search returns across its pages',
      }),
    ),
    list_status: Type.Optional(
      Type.Unsafe<'queued' | 'running' | 'failed'>({
        type: 'string',
        enum: ['queued', 'running', 'failed'],
        description: '`list_not_ready`: where the list is (`failed`: see the job’s `problem`)',
      }),
    ),
    required_scope: Type.Optional(
      Type.Unsafe<Scope>({
        type: 'string',
        enum: [...ALL_SCOPES],
        description: '`forbidden`: the scope the key lacks',
      }),
    ),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    // Clients should ignore members they do not know: later versions may add some.
    additionalProperties: true,
    description: 'An error, as application/problem+json (RFC 9457); extension members depend on the code',
  },
);
export type Problem = Static<typeof Problem>;
