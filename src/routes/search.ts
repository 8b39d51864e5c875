// POST /people/search (the deployed form's), /v1/people/search and /v1/company/search: keyed routes that
// search, then journal the search (filters used, ids returned) before the reply goes out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { QuotaCounter } from '../limits/quota.js';
import { reserveResults } from '../limits/search-allowance.js';
import { MAX_SIZE } from '../schemas/search.js';
import { COMPATIBLE_FILTERS } from '../search/compatible.js';
import { type Answered, companySearchV1, compatibleSearch, peopleSearchV1 } from '../search/run.js';
import { COMPANY_FILTERS, PEOPLE_FILTERS } from '../search/v1.js';
import type { Store } from '../store/store.js';
import type { Operation, Scope } from '../vocabulary/operations.js';
import {
  COMPATIBLE_DESCRIPTION,
  compatibleQuerystring,
  searchResponses,
  V1_DESCRIPTION,
} from './search-docs.js';

export interface SearchDeps {
  store: Store;
  /** Counts each key's search allowance (limits/search-allowance.ts), as it counts lookup quotas. */
  quota: QuotaCounter;
}

interface SearchSpec {
  operation: Operation;
  scope: Scope;
  /** The filter names a request names, for its audit entry even when it is refused. */
  named: (request: FastifyRequest) => string[];
  /** Runs the search, returning at most `allowed` results (what the key's search allowance has left). */
  run: (store: Store, request: FastifyRequest, allowed: number) => Promise<Answered<unknown>>;
  /** Headers of a successful answer, from its body. */
  headers?: (body: unknown) => Record<string, string>;
  /** The JSON sent for a successful answer. */
  send: (body: unknown) => unknown;
}

/** The filter names a JSON body's `filters` (and `q`) name, of those the operation knows. */
const namedInBody = (known: readonly string[]) => (request: FastifyRequest) => {
  const body = request.body as { filters?: unknown; q?: unknown } | undefined;
  const filters = body?.filters;
  const names =
    filters !== null && typeof filters === 'object' ? known.filter((n) => n in (filters as object)) : [];
  return body?.q === undefined ? names : [...names, 'q'];
};

const SPECS: Record<string, SearchSpec> = {
  '/people/search': {
    operation: 'people_search',
    scope: 'people:read',
    named: (request) =>
      COMPATIBLE_FILTERS.filter((name) => (request.query as Record<string, unknown>)[name] !== undefined),
    run: (store, request, allowed) =>
      compatibleSearch(store, request.query as Record<string, unknown>, allowed),
    headers: (body) => {
      const { total } = body as Awaited<ReturnType<typeof compatibleSearch>>['body'];
      return { 'enrich-total': String(total.value), 'enrich-total-relation': total.relation };
    },
    send: (body) => (body as Awaited<ReturnType<typeof compatibleSearch>>['body']).previews,
  },
  '/v1/people/search': {
    operation: 'people_search',
    scope: 'people:read',
    named: namedInBody(PEOPLE_FILTERS),
    run: (store, request, allowed) => peopleSearchV1(store, request.body ?? {}, allowed),
    send: (body) => body,
  },
  '/v1/company/search': {
    operation: 'company_search',
    scope: 'company:read',
    named: namedInBody(COMPANY_FILTERS),
    run: (store, request, allowed) => companySearchV1(store, request.body ?? {}, allowed),
    send: (body) => body,
  },
};

/**
 * Registers one search: admitted as a lookup is (a token, the scope), with no lookup quota; the results it
 * returns count against the key's search allowance, when it has one (`Enrich-Search-Quota-Remaining`). A
 * known key's search is journalled whatever its status (the filters it named, the ids it returned) before
 * the reply goes out.
 */
function registerOne(app: FastifyInstance, deps: SearchDeps, url: string, schema: FastifySchema) {
  const spec = SPECS[url]!;
  app.keyedRoute(
    {
      method: 'POST',
      url,
      schema,
      scopes: [spec.scope],
      audit: { operation: spec.operation, params: spec.named },
      // The tokenless request that takes an address over its limit is answered 401, as it always was.
      overLimit: 'from the next request',
      // Our own parsers give clearer errors (naming the parameter) than schema validation.
      validatorCompiler: () => () => true,
    },
    async (request, reply, admitted) => {
      const grant = await reserveResults(deps.quota, admitted.key, MAX_SIZE);
      let returned = 0;
      try {
        const answered = await spec.run(deps.store, request, grant?.granted ?? MAX_SIZE);
        returned = answered.ids.length;
        admitted.params = answered.params;
        admitted.matched = answered.ids;
        reply.headers(spec.headers?.(answered.body) ?? {}).type('application/json; charset=utf-8');
        return JSON.stringify(spec.send(answered.body));
      } finally {
        if (grant) reply.header('enrich-search-quota-remaining', String(grant.settle(returned)));
      }
    },
  );
}

export function registerSearch(app: FastifyInstance, deps: SearchDeps) {
  registerOne(app, deps, '/people/search', {
    operationId: 'searchPeopleCompatible',
    summary: 'Find people by company, position, seniority, department and country (deployed form)',
    description: COMPATIBLE_DESCRIPTION,
    tags: ['search'],
    querystring: compatibleQuerystring,
    'x-responses': searchResponses('PersonPreview', true),
  });
  registerOne(app, deps, '/v1/people/search', {
    operationId: 'searchPeople',
    summary: 'Find people by filters and free text, a page at a time',
    description: V1_DESCRIPTION,
    tags: ['search'],
    body: Type.Ref('PeopleSearchRequest'),
    'x-responses': searchResponses('PeopleSearchPage', false),
  });
  registerOne(app, deps, '/v1/company/search', {
    operationId: 'searchCompanies',
    summary: 'Find companies by filters and free text, a page at a time',
    description: V1_DESCRIPTION,
    tags: ['search'],
    body: Type.Ref('CompanySearchRequest'),
    'x-responses': searchResponses('CompanySearchPage', false),
  });
}
