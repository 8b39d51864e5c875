// POST /people/search (the deployed form's), /v1/people/search and /v1/company/search: authenticate, limit,
// check scope, search, then journal the search (filters used, ids returned) before the reply goes out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { identifyKey, requireLive, requireScope } from '../auth/authenticate.js';
import type { ProblemError } from '../errors.js';
import { sendProblem, toProblem } from '../http/problem.js';
import { admit } from '../limits/admit.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import { COMPATIBLE_FILTERS } from '../search/compatible.js';
import { type Answered, companySearchV1, compatibleSearch, peopleSearchV1 } from '../search/run.js';
import { COMPANY_FILTERS, PEOPLE_FILTERS } from '../search/v1.js';
import type { Operation, Scope, Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import {
  COMPATIBLE_DESCRIPTION,
  compatibleQuerystring,
  searchResponses,
  V1_DESCRIPTION,
} from './search-docs.js';

export interface SearchDeps {
  store: Store;
  limiter: RateLimiter;
  /** Audits and meters every keyed search; none when benchmarking its cost. */
  accounting: Accounting | undefined;
}

interface SearchSpec {
  operation: Operation;
  scope: Scope;
  /** The filter names a request names, for its audit entry even when it is refused. */
  named: (request: FastifyRequest) => string[];
  run: (store: Store, request: FastifyRequest) => Promise<Answered<unknown>>;
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

/**
 * One search: every step a lookup takes (authenticate, one token from the key's bucket, scope), no quota.
 * A known key's search is journalled whatever its status, and the reply waits for the journal's write.
 */
async function serve(deps: SearchDeps, spec: SearchSpec, request: FastifyRequest, reply: FastifyReply) {
  let keyId: string | undefined;
  let answered: Answered<unknown> | undefined;
  let problem: ProblemError | undefined;
  try {
    const match = await identifyKey(deps.store, request.headers.authorization);
    keyId = match.key.id;
    requireLive(match);
    reply.headers(await admit(deps.limiter, match.key));
    requireScope(match.key, spec.scope);
    answered = await spec.run(deps.store, request);
  } catch (error) {
    problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error, route: request.url }, 'search failed');
  }
  if (keyId !== undefined && deps.accounting) {
    deps.accounting.append({
      at: Date.now(),
      keyId,
      operation: spec.operation,
      params: answered?.params ?? spec.named(request),
      matched: answered?.ids ?? [],
      status: problem?.status ?? 200,
    });
    try {
      deps.accounting.commit();
    } catch {
      // Logged by the journal's health, once when the failure starts and once when it ends.
      return sendProblem(request, reply, toProblem(new StoreUnavailableError()));
    }
  }
  if (problem || !answered) return sendProblem(request, reply, problem ?? toProblem(undefined));
  return reply
    .headers(spec.headers?.(answered.body) ?? {})
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(spec.send(answered.body)));
}

const SPECS: Record<string, SearchSpec> = {
  '/people/search': {
    operation: 'people_search',
    scope: 'people:read',
    named: (request) =>
      COMPATIBLE_FILTERS.filter((name) => (request.query as Record<string, unknown>)[name] !== undefined),
    run: (store, request) => compatibleSearch(store, request.query as Record<string, unknown>),
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
    run: (store, request) => peopleSearchV1(store, request.body ?? {}),
    send: (body) => body,
  },
  '/v1/company/search': {
    operation: 'company_search',
    scope: 'company:read',
    named: namedInBody(COMPANY_FILTERS),
    run: (store, request) => companySearchV1(store, request.body ?? {}),
    send: (body) => body,
  },
};

export function registerSearch(app: FastifyInstance, deps: SearchDeps) {
  // Our own parsers give clearer errors (naming the parameter) than schema validation.
  const noValidation = () => () => true;
  app.post(
    '/people/search',
    {
      schema: {
        operationId: 'searchPeopleCompatible',
        summary: 'Find people by company, position, seniority, department and country (deployed form)',
        description: COMPATIBLE_DESCRIPTION,
        tags: ['search'],
        security: [{ bearer: [] }],
        querystring: compatibleQuerystring,
        'x-responses': searchResponses('PersonPreview', true),
      },
      validatorCompiler: noValidation,
    },
    (request, reply) => serve(deps, SPECS['/people/search']!, request, reply),
  );
  app.post(
    '/v1/people/search',
    {
      schema: {
        operationId: 'searchPeople',
        summary: 'Find people by filters and free text, a page at a time',
        description: V1_DESCRIPTION,
        tags: ['search'],
        security: [{ bearer: [] }],
        body: Type.Ref('PeopleSearchRequest'),
        'x-responses': searchResponses('PeopleSearchPage', false),
      },
      validatorCompiler: noValidation,
    },
    (request, reply) => serve(deps, SPECS['/v1/people/search']!, request, reply),
  );
  app.post(
    '/v1/company/search',
    {
      schema: {
        operationId: 'searchCompanies',
        summary: 'Find companies by filters and free text, a page at a time',
        description: V1_DESCRIPTION,
        tags: ['search'],
        security: [{ bearer: [] }],
        body: Type.Ref('CompanySearchRequest'),
        'x-responses': searchResponses('CompanySearchPage', false),
      },
      validatorCompiler: noValidation,
    },
    (request, reply) => serve(deps, SPECS['/v1/company/search']!, request, reply),
  );
}
