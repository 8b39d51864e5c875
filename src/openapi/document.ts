// The OpenAPI document: @fastify/swagger derives paths and parameters from the route schemas; this module
// names the components, puts in what route schemas cannot say (shared responses and headers) and serves it.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ADMIN_SCHEMAS } from '../schemas/admin.js';
import { CHANGES_SCHEMAS } from '../schemas/changes.js';
import { Company } from '../schemas/company.js';
import { LIST_SCHEMAS } from '../schemas/lists.js';
import { Person } from '../schemas/person.js';
import { Problem } from '../schemas/problem.js';
import { SEARCH_SCHEMAS } from '../schemas/search.js';
import { Usage } from '../schemas/usage.js';
import { WATCHLIST_SCHEMAS } from '../schemas/watchlists.js';
import { WEBHOOK_SCHEMAS } from '../webhooks/schemas.js';
import { HEADERS, headers, publicResponses, RESPONSES, responseRef, TRY_IT } from './components.js';

/** An operation's responses, as OpenAPI response objects or references, by status. */
export type Responses = Record<string, object>;

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The operation's OpenAPI responses, as they go into the document. @fastify/swagger writes its own from
     * `response` schemas and cannot refer to shared responses or headers; these replace them.
     */
    'x-responses'?: Responses;
  }
}

export const API_DESCRIPTION = `People and company enrichment. Every lookup needs \`Authorization: Bearer <token>\`.
Errors are \`application/problem+json\` with a stable \`code\`. Each key has a token-bucket rate limit
(\`RateLimit\`/\`RateLimit-Policy\` headers) and an optional monthly quota of matched lookups.`;

/** Where `enrich serve` listens unless told otherwise: the server the checked-in document names. */
export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** The named schemas: generated clients get a type of each name. */
const SCHEMAS = [
  Person,
  Company,
  Problem,
  Usage,
  ...SEARCH_SCHEMAS,
  ...CHANGES_SCHEMAS,
  ...ADMIN_SCHEMAS,
  ...WATCHLIST_SCHEMAS,
  ...LIST_SCHEMAS,
  ...WEBHOOK_SCHEMAS,
];

type Document = Record<string, unknown> & { paths?: Record<string, Record<string, Record<string, unknown>>> };

/** Puts each operation's declared responses in place of the ones @fastify/swagger wrote; servers first. */
function finished(document: Document): Document {
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem)) {
      type Parameter = { schema?: Record<string, unknown>; example?: unknown; examples?: unknown };
      for (const parameter of (operation.parameters ?? []) as Parameter[]) {
        if (parameter.schema?.[TRY_IT] !== true) continue;
        delete parameter.schema[TRY_IT];
        parameter.examples = { default: { value: parameter.example, 'x-disabled': false } };
        delete parameter.example;
      }
      if (operation['x-responses'] === undefined) continue;
      operation.responses = operation['x-responses'];
      delete operation['x-responses'];
      // Every body is read under a limit (the app's bodyLimit, or the route's own): one over it is a 413.
      const responses = operation.responses as Record<string, unknown>;
      if (operation.requestBody !== undefined && responses['413'] === undefined) {
        // Integer keys keep their numeric order: 413 lands among the statuses, before `4XX`.
        operation.responses = { ...responses, 413: responseRef('ContentTooLarge') };
      }
    }
  }
  const { openapi, info, servers, tags, paths, components, ...rest } = document;
  // A tree, not a graph: YAML would write an object met twice (two operations' responses) as an alias.
  return JSON.parse(JSON.stringify({ openapi, info, servers, tags, ...rest, paths, components }));
}

/** /openapi.json's body: the document, an object. */
const JSON_DOCUMENT = {
  'application/json': {
    schema: {
      type: 'object',
      required: ['openapi', 'info', 'paths', 'components'],
      properties: {
        openapi: { const: '3.1.0' },
        info: { type: 'object' },
        servers: { type: 'array' },
        paths: { type: 'object' },
        components: { type: 'object' },
      },
      description: 'An OpenAPI 3.1 document',
    },
  },
};

/** /openapi.yaml's body: the same document as YAML text, which a JSON schema can only call a string. */
const YAML_DOCUMENT = {
  'application/yaml': {
    schema: {
      type: 'string',
      minLength: 1,
      pattern: '^openapi: ',
      contentMediaType: 'application/yaml',
      description: 'The document as YAML text, starting with its `openapi` version',
    },
  },
};

/**
 * Registers the named schemas, @fastify/swagger (before any route, so that it sees them all) and the routes
 * serving the document.
 */
/**
 * Registers the named schemas, those built from what the routes document among them (`routeSchemas`: a
 * suppression takes each entity's lookup parameters), and the document.
 */
export async function registerOpenapi(
  app: FastifyInstance,
  routeSchemas: readonly { $id?: string }[] = [],
): Promise<void> {
  for (const schema of [...SCHEMAS, ...routeSchemas]) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Enrich',
        version: '1',
        description: API_DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the host the document was fetched from, by whatever name and port, with no Host header trusted.
      servers: [{ url: '/', description: 'The server this document was fetched from' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'enrich_session',
            description:
              "The console's session (POST /console/session); state-changing calls need this server's Origin",
          },
        },
        headers: HEADERS,
        responses: RESPONSES,
      },
      tags: [
        { name: 'lookups', description: 'Person and company lookups' },
        { name: 'search', description: 'Finding people and companies by filters and text' },
        { name: 'usage', description: "The calling key's own usage" },
        { name: 'changes', description: 'The feed of changes to the store of record' },
        {
          name: 'admin',
          description: 'Keys, usage series, audit, suppressions and stats: the `admin` scope',
        },
        { name: 'watchlists', description: 'The people and companies whose changes a key follows' },
        {
          name: 'webhooks',
          description: 'Change events POSTed to your endpoints, signed (Standard Webhooks)',
        },
        { name: 'console', description: "The browser console's sign-in (its session cookie)" },
        { name: 'operations', description: 'Health, readiness, metrics and this document' },
      ],
    },
    // Components named after their schema's $id (Person, Problem, …) rather than def-0, def-1, …
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      finished(('openapiObject' in document ? document.openapiObject : {}) as Document),
  });

  const operation = (operationId: string, format: string, content: object) => ({
    operationId,
    summary: `This API's OpenAPI 3.1 document, as ${format}`,
    tags: ['operations'],
    security: [],
    'x-responses': publicResponses({
      description: `This document, as ${format}`,
      headers: headers('X-Request-Id'),
      content,
    }),
  });
  app.get('/openapi.json', { schema: operation('openapiJson', 'JSON', JSON_DOCUMENT) }, async () =>
    app.swagger(),
  );
  app.get(
    '/openapi.yaml',
    { schema: operation('openapiYaml', 'YAML', YAML_DOCUMENT) },
    async (_request, reply) =>
      reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })),
  );
}

/** The document as checked in (docs/openapi.json): the served one, naming the default address as its server. */
export function publishedDocument(app: FastifyInstance): Record<string, unknown> {
  return {
    ...app.swagger(),
    servers: [{ url: DEFAULT_SERVER, description: '`enrich serve` on its default address' }],
  };
}
