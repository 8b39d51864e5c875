// The bulk lookups' bodies and results, per entity (TypeBox, for the OpenAPI document), and their limits: the
// body's shape is checked by src/lookup/bulk-request.ts, whose 400s name the JSON path; what is in `params` is
// each item's own.
import { type TSchema, Type } from '@sinclair/typebox';
import { Param, type ParamDoc } from './text.js';

/** Items in one JSON bulk request. */
export const MAX_ITEMS = 1000;
/** Characters of an item's `ref`. */
export const MAX_REF_LENGTH = 256;

const ref = (id: string) => Type.Unsafe({ $ref: `${id}#` });

/** What each parameter is, an example value, and its form. */
export type ParamDocs = Record<string, ParamDoc>;

/** What an entity's bulk schemas differ by: its record, parameters and the fields its records have. */
export interface BulkEntity {
  name: 'People' | 'Company';
  /** The record schema's name. */
  record: string;
  params: ParamDocs;
  /** The paths `fields` may name in its records. */
  paths: readonly string[];
  /** A `fields` value of its own, for the document. */
  fieldsExample: string[];
}

export const BulkSummary = Type.Object(
  {
    matched: Type.Integer({ minimum: 0, description: 'Items that found their one record' }),
    not_found: Type.Integer({ minimum: 0, description: 'Items that matched nothing (their GET: 404)' }),
    ambiguous: Type.Integer({ minimum: 0, description: 'Items that matched several records (409)' }),
    invalid: Type.Integer({ minimum: 0, description: 'Items whose params the GET refuses (400)' }),
    quota_exceeded: Type.Integer({
      minimum: 0,
      description: "Items past the key's monthly quota (402): not looked up",
    }),
  },
  { $id: 'BulkSummary', title: 'BulkSummary', additionalProperties: false },
);

export const BulkStreamError = Type.Object(
  {
    status: Type.Literal('error'),
    problem: ref('Problem'),
  },
  {
    $id: 'BulkStreamError',
    title: 'BulkStreamError',
    additionalProperties: false,
    description:
      "A stream's last line when it stopped before its input ended: the store failed, the server is shutting " +
      'down or the results could not be recorded (503), or the stream passed 1,000,000 lines (413). The ' +
      'results before it stand; the lines after the last result are to be sent again.',
  },
);

/** The named schemas of one entity's bulk: `${name}BulkRequest`, `…BulkItem`, `…BulkResult`, `…BulkResponse`. */
export function bulkSchemas({ name, record, params, paths, fieldsExample }: BulkEntity): TSchema[] {
  const Params = Type.Object(
    Object.fromEntries(Object.entries(params).map(([param, doc]) => [param, Type.Optional(Param(doc))])),
    {
      $id: `${name}Params`,
      title: `${name}Params`,
      additionalProperties: false,
      minProperties: 1,
      description:
        "The GET's query parameters as an object, with the same names, normalisation and checks: an item " +
        'whose params the GET would refuse gets an `invalid` result (its problem says why), not the whole request',
    },
  );
  const Item = Type.Object(
    {
      params: ref(`${name}Params`),
      ref: Type.Optional(
        Type.String({
          maxLength: MAX_REF_LENGTH,
          description: "The caller's own reference for the item, echoed in its result",
          examples: ['crm-0042'],
        }),
      ),
    },
    {
      $id: `${name}BulkItem`,
      title: `${name}BulkItem`,
      additionalProperties: false,
      description: 'One lookup; as a line of an NDJSON stream, one such object per line',
    },
  );
  const Request = Type.Object(
    {
      requests: Type.Array(ref(`${name}BulkItem`), { minItems: 1, maxItems: MAX_ITEMS }),
      fields: Type.Optional(
        Type.Array(Type.String({ enum: [...paths] }), {
          minItems: 1,
          description:
            'Fields of each record to return: top-level names and dotted paths into objects; `id` is always ' +
            'included. Without it, records are returned exactly as stored.',
          examples: [fieldsExample],
        }),
      ),
    },
    { $id: `${name}BulkRequest`, title: `${name}BulkRequest`, additionalProperties: false },
  );
  const refMember = Type.Optional(Type.String({ description: "The item's `ref`, when it gave one" }));
  const Result = Type.Union(
    [
      Type.Object(
        {
          ref: refMember,
          status: Type.Literal('matched'),
          matched_by: Type.Array(Type.String(), {
            description: 'The parameters that found the record, as the GET names them in Enrich-Matched-By',
          }),
          match_likelihood: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 10,
              description:
                'For a person matched by name and company: as the GET sends it in Enrich-Match-Likelihood',
            }),
          ),
          record: ref(record),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          ref: refMember,
          status: Type.Unsafe<string>({
            type: 'string',
            enum: ['not_found', 'ambiguous', 'invalid', 'quota_exceeded'],
          }),
          problem: ref('Problem'),
        },
        { additionalProperties: false },
      ),
    ],
    {
      $id: `${name}BulkResult`,
      title: `${name}BulkResult`,
      description:
        "One item's result: its record, or the problem document its single GET would have answered (404, " +
        "409, 400; 402 past the key's quota), carrying the bulk request's id",
    },
  );
  const Response = Type.Object(
    {
      results: Type.Array(ref(`${name}BulkResult`), { description: 'One per item, in request order' }),
      summary: ref('BulkSummary'),
    },
    { $id: `${name}BulkResponse`, title: `${name}BulkResponse`, additionalProperties: false },
  );
  return [Params, Item, Request, Result, Response];
}
