// Registers a lookup with Fastify: its OpenAPI description, GET and HEAD through the lookup path (for
// requests the server's own pre-routing did not take: inject() in tests, a percent-encoded path), and the POST
// twin taking a JSON body (/v1/…/lookup).
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_LOOKUP_BODY } from '../http/lookup-body.js';
import type { LookupPath } from '../http/lookup-path.js';
import { selectablePaths } from '../lookup/fields.js';
import type { LookupOperation } from '../lookup/operations.js';
import { FIELDS_PARAM } from '../lookup/selection.js';
import { headers, KEYED, responseRef, schemaRef, TRY_IT } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import { NameList, Param, type ParamDoc } from '../schemas/text.js';

export interface LookupDocs<P extends string> {
  /** OpenAPI: description and examples of each parameter, and the record schema. */
  paramDocs: Record<P, ParamDoc>;
  /** The record's schema, named by its $id in the document. */
  record: TSchema;
  /** `person` or `company`, for descriptions. */
  entity: string;
  summary: string;
  /** The unversioned path's operationId; the /v1 path's adds `V1`, the POST's `Post`. */
  operationId: string;
  /** A `fields` value selecting from this record, for the document. */
  fieldsExample: string;
  /** The identifier whose example a reference page sends when tried (one that the demo set holds). */
  tryParam: P;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A lookup route: counted and logged by the lookup path, not by the app's response hook. */
    lookup?: boolean;
  }
}

/** What a lookup answers: the record, or a problem; every response names its headers. */
function lookupResponses(record: string, entity: string, more: Responses = {}): Responses {
  return {
    200: {
      description:
        `The one ${entity} the matching identifiers agree on, exactly as it was imported; with \`fields\`, ` +
        'only those fields (and `id`), in the order of the record',
      headers: headers(
        'ETag',
        'Enrich-Matched-By',
        // Only a person is matched by name and company.
        ...(entity === 'person' ? (['Enrich-Match-Likelihood'] as const) : []),
        ...KEYED,
        'Enrich-Quota-Remaining',
      ),
      content: { 'application/json': { schema: schemaRef(record) } },
    },
    304: responseRef('NotModified'),
    400: responseRef('BadRequest'),
    401: responseRef('Unauthorized'),
    402: responseRef('QuotaExceeded'),
    403: responseRef('Forbidden'),
    404: responseRef('NotFound'),
    409: responseRef('AmbiguousMatch'),
    429: responseRef('RateLimited'),
    '4XX': responseRef('UnreadableRequest'),
    500: responseRef('InternalError'),
    503: responseRef('Unavailable'),
    ...more,
  };
}

/** The parameters of a lookup, as its query string or its JSON body takes them. */
function parameters<P extends string>(operation: LookupOperation<P>, docs: LookupDocs<P>, body: boolean) {
  const identifiers = operation.params.map((p) => {
    // The GET's example identifier is the one a reference page's "try it" and code samples fill in.
    const tryIt = !body && p === docs.tryParam ? { [TRY_IT]: true } : {};
    return [p, Type.Optional(Param(docs.paramDocs[p], tryIt))];
  });
  const description =
    'The fields to return, comma-separated: top-level fields and dotted paths into objects; `id` is always ' +
    'included; an unknown one is a 400 listing the valid names, and so is a list naming none. Not an ' +
    "identifier: given alone, it is `missing_identifier`. The response's ETag is the record's with a digest " +
    'of the selection added.';
  const paths = selectablePaths(docs.record);
  const list = NameList(paths, true, { description, examples: [docs.fieldsExample] });
  const fields = body
    ? Type.Union([
        list,
        Type.Array(Type.String({ enum: paths }), {
          minItems: 1,
          description: 'The same, as a list of paths',
        }),
      ])
    : list;
  return Type.Object(Object.fromEntries([...identifiers, [FIELDS_PARAM, Type.Optional(fields)]]), {
    additionalProperties: false,
  });
}

function schemaFor<P extends string>(operation: LookupOperation<P>, docs: LookupDocs<P>, versioned: boolean) {
  const other = versioned ? operation.path : `/v1${operation.path}`;
  return {
    operationId: versioned ? `${docs.operationId}V1` : docs.operationId,
    summary: versioned ? `${docs.summary} (/v1)` : docs.summary,
    description:
      `Give one or more identifiers${operation.entity === 'people' ? ', or a name and a company (see `name`)' : ''}; ` +
      `the same operation is also served as \`${other}\`, and as ` +
      `\`POST /v1${operation.path}/lookup\` with the parameters in a JSON body (no e-mail address in the URL).`,
    tags: ['lookups'],
    security: [{ bearer: [] }],
    querystring: parameters(operation, docs, false),
    'x-responses': lookupResponses(String(docs.record.$id), docs.entity),
  };
}

function postSchemaFor<P extends string>(operation: LookupOperation<P>, docs: LookupDocs<P>) {
  return {
    operationId: `${docs.operationId}Post`,
    summary: `${docs.summary}, the identifiers in a JSON body`,
    description:
      `Answers exactly what \`GET /v1${operation.path}\` answers with these parameters (status, headers, body, ` +
      'ETag, 304), so that e-mail addresses never reach URLs, proxy logs or browser history. The body is a ' +
      `JSON object of at most ${MAX_LOOKUP_BODY / 1024} KiB, its values strings (\`fields\` may be a list).`,
    tags: ['lookups'],
    security: [{ bearer: [] }],
    body: parameters(operation, docs, true),
    'x-responses': lookupResponses(String(docs.record.$id), docs.entity, {
      400: responseRef('BadLookupBody'),
      413: responseRef('ContentTooLarge'),
      415: responseRef('LookupUnsupportedMediaType'),
    }),
  };
}

/**
 * Registers GET (and HEAD) of a lookup under its path and `/v1/path`; any other method is the not-found
 * handler's 405 (http/allowed-methods.ts).
 */
export function registerLookup<P extends string>(
  app: FastifyInstance,
  operation: LookupOperation<P>,
  docs: LookupDocs<P>,
  path: LookupPath,
) {
  for (const url of [operation.path, `/v1${operation.path}`]) {
    app.route({
      method: 'GET',
      url,
      schema: schemaFor(operation, docs, url !== operation.path),
      // Our own strict parser gives clearer errors than schema validation (contract §3).
      validatorCompiler: () => () => true,
      config: { lookup: true },
      handler: (request, reply) => {
        reply.hijack();
        const query = request.query as Record<string, unknown>;
        path.handle(request.raw, reply.raw, operation as LookupOperation, url, query, request.id);
      },
    });
  }
  registerPost(app, operation, docs, path);
}

/**
 * POST /v1/…/lookup: the body is left unread by Fastify (any content type, no parsing) and read by the lookup
 * path, which answers a body it cannot take (415, 413, 400) once the key has been checked, as a GET's query.
 */
function registerPost<P extends string>(
  app: FastifyInstance,
  operation: LookupOperation<P>,
  docs: LookupDocs<P>,
  path: LookupPath,
) {
  const url = `/v1${operation.path}/lookup`;
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      method: 'POST',
      url,
      schema: postSchemaFor(operation, docs),
      validatorCompiler: () => () => true,
      config: { lookup: true },
      handler: (request, reply) => {
        reply.hijack();
        path.handleBody(request.raw, reply.raw, operation as LookupOperation, url, request.id);
      },
    });
  });
}
