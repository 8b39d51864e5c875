// POST /v1/people/bulk and /v1/company/bulk: many lookups in one request, as JSON or as an NDJSON stream. Their
// bodies are read by the bulk path itself (bounded, streamed), never by Fastify's parsers.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { BulkOperation } from '../http/bulk-call.js';
import type { BulkPath } from '../http/bulk-path.js';
import { FieldCatalogue } from '../lookup/fields.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../lookup/operations.js';
import { headers, KEYED, responseRef, schemaRef } from '../openapi/components.js';
import { BulkStreamError, BulkSummary, bulkSchemas, type ParamDocs } from '../schemas/bulk.js';
import { Company } from '../schemas/company.js';
import { Person } from '../schemas/person.js';
import { NameList } from '../schemas/text.js';
import { paramDocs as companyParams } from './company.js';
import { paramDocs as personParams } from './people.js';

interface BulkRoute {
  name: 'People' | 'Company';
  lookup: LookupOperation;
  record: 'Person' | 'Company';
  entity: string;
  params: ParamDocs;
  fieldsExample: string[];
  operation: BulkOperation;
}

const ROUTES: BulkRoute[] = [
  {
    name: 'People',
    lookup: PEOPLE_LOOKUP as LookupOperation,
    record: 'Person',
    entity: 'person',
    params: personParams,
    fieldsExample: ['name', 'current_company.name'],
    operation: { lookup: PEOPLE_LOOKUP as LookupOperation, fields: new FieldCatalogue(Person) },
  },
  {
    name: 'Company',
    lookup: COMPANY_LOOKUP as LookupOperation,
    record: 'Company',
    entity: 'company',
    params: companyParams,
    fieldsExample: ['name', 'industry_codes.abn'],
    operation: { lookup: COMPANY_LOOKUP as LookupOperation, fields: new FieldCatalogue(Company) },
  },
];

const NDJSON = 'application/x-ndjson';

const DESCRIPTION = (entity: string, path: string) =>
  `Up to 1,000 ${entity} lookups in one request, each item's result what \`GET ${path}\` would answer for its ` +
  'params, in request order, with `ref` echoed. Or, sent as `application/x-ndjson` (one item per line, up to ' +
  "1,000,000 lines), a stream answered line by line as the lines resolve, paced at the key's rate; blank lines " +
  "are skipped. Each item counts as one lookup: against the rate (a JSON bulk is admitted while the key's " +
  'bucket holds a token, and charged all its items at once), against the monthly quota when it matches (items ' +
  'past it get a `quota_exceeded` result), in the audit log and in usage.';

function schemaFor(route: BulkRoute) {
  const { name, entity, lookup } = route;
  return {
    operationId: `${entity}Bulk`,
    summary: `Look up many ${entity === 'person' ? 'people' : 'companies'} at once`,
    description: DESCRIPTION(entity, `/v1${lookup.path}`),
    tags: ['lookups'],
    security: [{ bearer: [] }],
    querystring: Type.Object(
      {
        fields: Type.Optional(
          NameList(route.operation.fields.paths, true, {
            description:
              "Fields of each record to return, comma-separated (a stream's only place for it; a JSON body may " +
              'give `fields` instead, but not both: that is a 400)',
            examples: [route.fieldsExample.join(',')],
          }),
        ),
      },
      { additionalProperties: false },
    ),
    body: {
      content: {
        'application/json': { schema: { $ref: `${name}BulkRequest#` } },
        [NDJSON]: { schema: { $ref: `${name}BulkItem#` } },
      },
    },
    'x-responses': {
      200: {
        description:
          'Every item answered: as one JSON document, or (to an NDJSON body) one result per line, in order, ' +
          'the stream ending with a `BulkStreamError` line if it stopped early',
        headers: headers(...KEYED, 'Enrich-Quota-Remaining'),
        content: {
          'application/json': { schema: schemaRef(`${name}BulkResponse`) },
          [NDJSON]: {
            schema: { oneOf: [schemaRef(`${name}BulkResult`), schemaRef('BulkStreamError')] },
          },
        },
      },
      400: responseRef('BadBulkRequest'),
      401: responseRef('Unauthorized'),
      403: responseRef('Forbidden'),
      413: responseRef('PayloadTooLarge'),
      415: responseRef('BulkUnsupportedMediaType'),
      429: responseRef('RateLimited'),
      '4XX': responseRef('UnreadableRequest'),
      500: responseRef('InternalError'),
      503: responseRef('Unavailable'),
    },
  };
}

/** Registers both bulk routes and their schemas in the document (any other method: app.ts's 405). */
export function registerBulk(app: FastifyInstance, path: BulkPath): void {
  for (const schema of [BulkSummary, BulkStreamError]) app.addSchema(schema);
  for (const route of ROUTES) {
    for (const schema of bulkSchemas({ ...route, paths: route.operation.fields.paths }))
      app.addSchema(schema);
  }
  app.register(async (scope) => {
    // The bulk path reads the body itself, as it arrives: Fastify is told to leave every body alone.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const route of ROUTES) {
      const url = `/v1${route.lookup.path}/bulk`;
      scope.route({
        method: 'POST',
        url,
        schema: schemaFor(route),
        // The bulk path checks the query and the body itself, naming what is wrong.
        validatorCompiler: () => () => true,
        // Admitted by the bulk path itself, which reads the body between the steps (http/bulk-path.ts); the
        // tokenless request that takes an address over its limit is answered 401, as it always was.
        config: { keyed: { overLimit: 'from the next request' } },
        handler: (request, reply) => path.handle(request, reply, route.operation),
      });
    }
  });
}
