// Registers a lookup with Fastify: its OpenAPI description, GET and HEAD through the lookup path (for
// requests the server's own pre-routing did not take: inject() in tests, a percent-encoded path), and a 405
// for every other method.
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../errors.js';
import type { LookupPath } from '../http/lookup-path.js';
import { sendProblem } from '../http/problem.js';
import type { LookupOperation } from '../lookup/operations.js';
import { headers, KEYED, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';

export interface LookupDocs<P extends string> {
  /** OpenAPI: description and examples of each parameter, and the record schema. */
  paramDocs: Record<P, { description: string; example: string }>;
  /** The record's schema, named by its $id in the document. */
  record: TSchema;
  /** `person` or `company`, for descriptions. */
  entity: string;
  summary: string;
  /** The unversioned path's operationId; the /v1 path's adds `V1`. */
  operationId: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A lookup route: counted and logged by the lookup path, not by the app's response hook. */
    lookup?: boolean;
  }
}

const ALLOW = 'GET, HEAD';

/** What a lookup answers: the record, or a problem; every response names its headers. */
function lookupResponses(record: string, entity: string): Responses {
  return {
    200: {
      description: `The one ${entity} the matching identifiers agree on, exactly as it was imported`,
      headers: headers('ETag', 'Enrich-Matched-By', ...KEYED, 'Enrich-Quota-Remaining'),
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
  };
}

function schemaFor<P extends string>(operation: LookupOperation<P>, docs: LookupDocs<P>, versioned: boolean) {
  const query = Object.fromEntries(
    operation.params.map((p) => [
      p,
      Type.Optional(
        Type.String({ description: docs.paramDocs[p].description, examples: [docs.paramDocs[p].example] }),
      ),
    ]),
  );
  const other = versioned ? operation.path : `/v1${operation.path}`;
  return {
    operationId: versioned ? `${docs.operationId}V1` : docs.operationId,
    summary: docs.summary,
    description: `Give one or more identifiers; the same operation is also served as \`${other}\`.`,
    tags: ['lookups'],
    security: [{ bearer: [] }],
    querystring: Type.Object(query, { additionalProperties: false }),
    'x-responses': lookupResponses(String(docs.record.$id), docs.entity),
  };
}

/** Registers GET (and HEAD) of a lookup under its path and `/v1/path`, and a 405 for every other method. */
export function registerLookup<P extends string>(
  app: FastifyInstance,
  operation: LookupOperation<P>,
  docs: LookupDocs<P>,
  path: LookupPath,
) {
  const methodNotAllowed = (request: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      request,
      reply.header('allow', ALLOW),
      new ProblemError('method_not_allowed', `${request.method} is not allowed here; use GET.`),
    );

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
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      schema: { hide: true },
      handler: methodNotAllowed,
    });
  }
}
