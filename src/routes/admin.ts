// /v1/admin/… (contract §9), scope `admin`: keys (admin-keys.ts), usage series, audit search (JSON or CSV),
// suppressions and the store's stats. Thin: each reads its query or body and calls the use case in src/admin.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import type { MinuteCounts } from '../accounting/minute-counts.js';
import { AUDIT_PAGE, auditCsv, auditPage } from '../admin/audit.js';
import { storeStats } from '../admin/stats.js';
import {
  entityOf,
  identifiersGiven,
  suppress,
  suppressionStatus,
  unsuppress,
} from '../admin/suppressions.js';
import { GRANULARITIES, usageRange, usageSeries } from '../admin/usage.js';
import { ProblemError } from '../errors.js';
import { headers, KEYED } from '../openapi/components.js';
import { Param, type ParamDoc } from '../schemas/text.js';
import type { Store } from '../store/store.js';
import { ENTITIES, type Entity } from '../vocabulary/entities.js';
import {
  ADMIN_SCOPES,
  adminResponses,
  adminSchema,
  IDENTIFIER_DOCS,
  jsonAnswer,
  OWN_VALIDATION,
  queryOf,
} from './admin-docs.js';
import { registerAdminKeys } from './admin-keys.js';

export interface AdminDeps {
  store: Store;
  /** Folded first, so that a day series includes the latest lookups. */
  accounting: Accounting | undefined;
  /** Flushed first, so that a minute or hour series includes this process's latest requests. */
  minutes: MinuteCounts | undefined;
  defaultRate: number | undefined;
}

// Every parameter is given once and not empty (queryOf).
const string = (description: string, example?: string) => ({
  type: 'string',
  minLength: 1,
  description,
  ...(example === undefined ? {} : { examples: [example] }),
});

/** A moment of a range: an ISO 8601 date or date and time, which the range's bounds are read from. */
const moment = (description: string) => ({
  ...string(`${description}: an ISO date or time, such as 2026-11-01 or 2026-11-01T09:30:00Z`),
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}',
});

const USAGE_DESCRIPTION = `\`from\` must come before \`to\`; a series by minute covers at most 7 days, by hour 31,
by day 3,660. Without \`from\`, it starts an hour, a day or 30 days before \`to\` (by minute, hour or day).`;

const AUDIT_DESCRIPTION = `Give \`person\`, \`company\` or \`key\` (\`person\` and \`company\` not together);
an unknown \`key\` is a 404. \`person\` or \`company\` takes any identifier a lookup takes (an id, a LinkedIn URL
or slug, an address or its SHA-256, a website, a domain, an ABN), resolved as a lookup would: one that names no
record finds no entries. \`Accept: text/csv\` answers the page as CSV (cells a spreadsheet would run as formulas
prefixed with \`'\`); \`Enrich-Next-After\` carries the next page's \`after\` in both forms.`;

const querystring = (properties: Record<string, object>) => ({
  type: 'object',
  properties,
  additionalProperties: false,
});

const AUDIT_PARAMS = ['person', 'company', 'key', 'from', 'to', 'after', 'limit'];
const USAGE_PARAMS = ['key', 'from', 'to', 'granularity'];

/**
 * Each identifier a suppression's query takes, of the form its lookup takes: a parameter both entities have
 * (id, ln_slug, ln_url) has one form, described for each.
 */
function identifierParams(): Record<string, object> {
  const docs = new Map<string, Array<[Entity, ParamDoc]>>();
  for (const entity of ENTITIES) {
    for (const [name, doc] of Object.entries(IDENTIFIER_DOCS[entity])) {
      docs.set(name, [...(docs.get(name) ?? []), [entity, doc]]);
    }
  }
  return Object.fromEntries(
    [...docs].map(([name, each]) => {
      const [[, first]] = each as [[Entity, ParamDoc]];
      if (each.some(([, doc]) => JSON.stringify(doc.form) !== JSON.stringify(first.form))) {
        throw new Error(`${name}: the entities' lookups take different forms`);
      }
      const description = each.map(([entity, doc]) => `${entity}: ${doc.description}`).join('; ');
      return [name, Param({ ...first, description: `${description}; normalised as the lookup would` })];
    }),
  );
}

const IDENTIFIERS_RULE =
  "Give `entity` and one or more of its lookup's identifiers (each described as of `people`, `companies` or both): " +
  "a parameter of the other entity is a 400 (unknown_parameter), a value the lookup would refuse is the lookup's 400.";

const identifierQuery = (entity: 'required' | 'optional') => ({
  ...querystring({ entity: { type: 'string', enum: [...ENTITIES] }, ...identifierParams() }),
  ...(entity === 'required' ? { required: ['entity'] } : {}),
});

function pageLimit(text: string | undefined): number {
  if (text === undefined) return AUDIT_PAGE;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 10_000) {
    throw new ProblemError('invalid_parameter', 'limit: expected a whole number from 1 to 10000', {
      parameter: 'limit',
    });
  }
  return limit;
}

export function registerAdmin(app: FastifyInstance, deps: AdminDeps) {
  const { store } = deps;
  const route = { scopes: ADMIN_SCOPES, ...OWN_VALIDATION };
  registerAdminKeys(app, deps);

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/usage',
      schema: adminSchema(
        {
          operationId: 'adminUsage',
          summary: 'Requests and outcomes per key and operation, by minute, hour (with latency) or day',
          description: USAGE_DESCRIPTION,
          querystring: querystring({
            key: string('Only this key (one that made no request has no series)', 'key_7GdK2mQx9a'),
            from: moment('First moment included'),
            to: moment('First moment excluded; default now'),
            granularity: { type: 'string', enum: [...GRANULARITIES], default: 'day' },
          }),
        },
        adminResponses({ 200: jsonAnswer('The series', 'UsageSeriesPage') }),
      ),
    },
    async (request) => {
      const query = queryOf(request, USAGE_PARAMS);
      const range = usageRange(query);
      if (range.granularity === 'day') {
        await deps.accounting?.foldNow().catch((error: unknown) => {
          request.log.warn({ err: error }, 'admin usage: the journal could not be folded first');
        });
      } else {
        await deps.minutes?.flush(true);
      }
      return usageSeries(store, query.key, range);
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/audit',
      schema: adminSchema(
        {
          operationId: 'adminAudit',
          summary:
            'Who looked a person or company up (by any identifier), or what a key looked up; oldest first',
          description: AUDIT_DESCRIPTION,
          querystring: querystring({
            person: string('Any identifier of a person', 'jane.citizen@acme.com.au'),
            company: string('Any identifier of a company', 'acme.com.au'),
            key: string("Only this key's lookups", 'key_7GdK2mQx9a'),
            from: moment('First moment included'),
            to: moment('First moment excluded'),
            after: string("The previous page's next_after"),
            limit: { type: 'integer', minimum: 1, maximum: 10_000, default: AUDIT_PAGE },
          }),
        },
        adminResponses(
          {
            200: {
              description: 'A page of audited lookups',
              headers: headers(...KEYED, 'Enrich-Next-After'),
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/AuditPage' } },
                'text/csv': { schema: { type: 'string' } },
              },
            },
          },
          ['KeyNotFound'],
        ),
      ),
    },
    async (request, reply) => {
      const query = queryOf(request, AUDIT_PARAMS);
      await deps.accounting?.foldNow().catch((error: unknown) => {
        request.log.warn({ err: error }, 'admin audit: the journal could not be folded first');
      });
      const { person, company, key, from, to, after } = query;
      const limit = pageLimit(query.limit);
      const page = await auditPage(store, { person, company, key, from, to, after, limit });
      if (page.next_after !== null) reply.header('enrich-next-after', page.next_after);
      if (!(request.headers.accept ?? '').includes('text/csv')) return page;
      reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="audit.csv"');
      return auditCsv(page.entries);
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/suppressions',
      schema: adminSchema(
        {
          operationId: 'adminSuppressions',
          summary: 'Whether identifiers are suppressed; without any, how many hashes each entity keeps',
          description:
            `${IDENTIFIERS_RULE} With no parameters at all, how many hashes each entity keeps; with \`entity\` ` +
            "alone, that entity's; an identifier without `entity` is a 400.",
          querystring: identifierQuery('optional'),
        },
        adminResponses({
          200: {
            description: 'Per identifier, whether a suppression holds it; or the counts of hashes',
            headers: headers(...KEYED),
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        }),
      ),
    },
    async (request) => {
      const query = queryOf(request, null);
      const named = Object.keys(query).length;
      if (named === 0) return suppressionStatus(store, undefined, []);
      const entity = entityOf(query.entity, 'invalid_parameter');
      const keys = named === 1 ? [] : identifiersGiven(entity, query, 'invalid_parameter');
      return suppressionStatus(store, entity, keys);
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'POST',
      url: '/v1/admin/suppressions',
      schema: adminSchema(
        {
          operationId: 'adminSuppress',
          summary:
            'Delete what each identifier finds and keep it out (as enrich suppress); dry_run only says',
          body: Type.Ref('SuppressionRequest'),
        },
        adminResponses({ 200: jsonAnswer('What was (or would be) deleted', 'SuppressionResult') }),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new ProblemError(
          'invalid_body',
          'Send a JSON object: {"entity": "people", "work_email": "…"}.',
        );
      }
      const given = body as Record<string, unknown>;
      const entity = entityOf(given.entity, 'invalid_body');
      const dryRun = given.dry_run ?? false;
      if (typeof dryRun !== 'boolean') {
        throw new ProblemError('invalid_body', 'dry_run: expected true or false', { parameter: 'dry_run' });
      }
      const keys = identifiersGiven(entity, given, 'invalid_body', ['dry_run']);
      return { entity, dry_run: dryRun, suppressed: await suppress(store, entity, keys, dryRun) };
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'DELETE',
      url: '/v1/admin/suppressions',
      schema: adminSchema(
        {
          operationId: 'adminUnsuppress',
          summary: 'Forget the suppressions holding each identifier (as enrich unsuppress)',
          description: `${IDENTIFIERS_RULE} Without an identifier, a 400 (missing_identifier).`,
          querystring: identifierQuery('required'),
        },
        adminResponses({
          200: {
            description: 'How many hashes each identifier lifted; re-import the records to restore them',
            headers: headers(...KEYED),
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        }),
      ),
    },
    async (request) => {
      const query = queryOf(request, null);
      const entity = entityOf(query.entity, 'invalid_parameter');
      const keys = identifiersGiven(entity, query, 'invalid_parameter');
      return { entity, unsuppressed: await unsuppress(store, entity, keys) };
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/stats',
      schema: adminSchema(
        { operationId: 'adminStats', summary: "Records per entity, the store's size, events and deliveries" },
        adminResponses({ 200: jsonAnswer('The figures', 'StoreStats') }),
      ),
    },
    async (request) => {
      queryOf(request, []);
      return storeStats(store);
    },
  );
}
