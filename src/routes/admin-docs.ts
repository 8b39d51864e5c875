// What every admin operation shares: its scope, its tag, its problem responses and how its query is read.
import type { FastifyRequest, FastifySchema } from 'fastify';
import { ProblemError } from '../errors.js';
import { PERSON_PARAMS } from '../identifiers/params.js';
import { headers, KEYED, type ResponseName, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import { type EntityParamDocs, suppressionRequest } from '../schemas/admin.js';
import type { Scope } from '../vocabulary/operations.js';
import { paramDocs as companyParams } from './company.js';
import { paramDocs as peopleParams } from './people.js';

export const ADMIN_SCOPES: readonly Scope[] = ['admin'];

/** Each entity's identifiers as its lookup documents them: what suppressions take. */
export const IDENTIFIER_DOCS: EntityParamDocs = {
  people: Object.fromEntries(PERSON_PARAMS.map((name) => [name, peopleParams[name]])),
  companies: companyParams,
};

/** The named schemas built from the lookups' parameters, for the document. */
export const ADMIN_ROUTE_SCHEMAS = [suppressionRequest(IDENTIFIER_DOCS)];

/** A JSON answer of a named schema. */
export const jsonAnswer = (description: string, schema: string) => ({
  description,
  headers: headers(...KEYED),
  content: { 'application/json': { schema: schemaRef(schema) } },
});

/** An admin operation's responses: its own, then the refusals every admin operation may answer. */
export function adminResponses(ok: Record<string, object>, more: ResponseName[] = []): Responses {
  const named = Object.fromEntries(
    more.map((name) => [name === 'KeyNotFound' ? 404 : name === 'KeyRevoked' ? 409 : 400, responseRef(name)]),
  );
  return {
    ...ok,
    400: responseRef('AdminBadRequest'),
    401: responseRef('Unauthorized'),
    403: responseRef('AdminForbidden'),
    ...named,
    429: responseRef('RateLimited'),
    '4XX': responseRef('UnreadableRequest'),
    500: responseRef('InternalError'),
    503: responseRef('Unavailable'),
  };
}

/** An admin operation's schema: tagged `admin`, its parameters and body as documented, its responses. */
export const adminSchema = (
  schema: Omit<FastifySchema, 'tags' | 'x-responses'> & { operationId: string; summary: string },
  responses: Responses,
): FastifySchema => ({ ...schema, tags: ['admin'], 'x-responses': responses });

/** A path parameter `id`: a key's id. */
export const keyIdParams = {
  type: 'object',
  properties: { id: { type: 'string', description: "The key's id", examples: ['key_7GdK2mQx9a'] } },
  required: ['id'],
} as const;

/** The query's parameters, each given once and each one the operation takes (`accepted`, or any when null). */
export function queryOf(request: FastifyRequest, accepted: readonly string[] | null): Record<string, string> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (accepted !== null && !accepted.includes(name)) {
      throw new ProblemError(
        'unknown_parameter',
        `Unknown parameter "${name}"; accepted: ${accepted.join(', ')}.`,
        {
          parameter: name,
          accepted,
        },
      );
    }
    if (typeof value !== 'string' || value === '') {
      throw new ProblemError('invalid_parameter', `${name}: give it once, not empty`, { parameter: name });
    }
    values[name] = value;
  }
  return values;
}

/** Our own readers name the member or parameter at fault, more clearly than schema validation would. */
export const OWN_VALIDATION = { validatorCompiler: () => () => true } as const;
