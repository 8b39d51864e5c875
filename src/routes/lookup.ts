// Registers a lookup with Fastify: its OpenAPI description, GET and HEAD through the lookup path (for
// requests the server's own pre-routing did not take: inject() in tests, a percent-encoded path), and a 405
// for every other method.
import '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../errors.js';
import type { LookupPath } from '../http/lookup-path.js';
import { sendProblem } from '../http/problem.js';
import type { LookupOperation } from '../lookup/operations.js';

export interface LookupDocs<P extends string> {
  /** OpenAPI: description and examples of each parameter, and the record schema. */
  paramDocs: Record<P, { description: string; example: string }>;
  record: TSchema;
  summary: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A lookup route: counted and logged by the lookup path, not by the app's response hook. */
    lookup?: boolean;
  }
}

const ALLOW = 'GET, HEAD';

function schemaFor<P extends string>(operation: LookupOperation<P>, docs: LookupDocs<P>) {
  const problem = { $ref: 'Problem#' };
  const query = Object.fromEntries(
    operation.params.map((p) => [
      p,
      Type.Optional(
        Type.String({ description: docs.paramDocs[p].description, examples: [docs.paramDocs[p].example] }),
      ),
    ]),
  );
  return {
    summary: docs.summary,
    tags: ['lookups'],
    security: [{ bearer: [] }],
    querystring: Type.Object(query, { additionalProperties: false }),
    response: {
      200: docs.record,
      304: { description: 'Not modified: the If-None-Match entity tag matches', type: 'null' },
      400: problem,
      401: problem,
      402: problem,
      403: problem,
      404: problem,
      409: problem,
      429: problem,
      503: problem,
    },
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
      schema: { ...schemaFor(operation, docs), hide: url !== operation.path },
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
