// The lookup pipeline shared by /people and /company: authenticate → limit → parse → resolve → reply,
// then meter and audit whatever the outcome.
import '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../accounting/audit-log.js';
import type { UsageMeter, UsageOutcome } from '../accounting/usage-meter.js';
import { identifyKey, requireLive, requireScope } from '../auth/authenticate.js';
import { ProblemError } from '../errors.js';
import { sendProblem, toProblem } from '../http/problem.js';
import type { LookupKey } from '../identifiers/params.js';
import { admit } from '../limits/admit.js';
import type { QuotaCounter, QuotaTicket } from '../limits/quota.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import { parseLookupQuery } from '../lookup/query.js';
import { resolve } from '../lookup/resolve.js';
import type { LookupOutcome, Metrics } from '../metrics.js';
import type { Entity, Operation, Scope, Store } from '../store/store.js';

export interface LookupDeps {
  store: Store;
  limiter: RateLimiter;
  quota: QuotaCounter;
  metrics: Metrics;
  meter: UsageMeter;
  audit: AuditLog;
  /** False: lookups are neither audited nor metered (benchmarking their cost only). */
  accounting: boolean;
}

export interface LookupRoute<P extends string> {
  path: string;
  entity: Entity;
  operation: Operation;
  scope: Scope;
  params: readonly P[];
  toKey: (param: P, raw: string) => LookupKey;
  /** OpenAPI: description and examples of each parameter, and the record schema. */
  paramDocs: Record<P, { description: string; example: string }>;
  record: TSchema;
  summary: string;
}

const OUTCOME_BY_CODE: Record<string, LookupOutcome> = {
  not_found: 'not_found',
  ambiguous_match: 'ambiguous',
};
const ALLOW = 'GET, HEAD';

/** What a keyed lookup is audited with, filled in as the pipeline goes. */
interface Seen {
  keyId: string | undefined;
  matched: string[];
}

/** The ids a 409 listed, each once. */
function idsListed(problem: ProblemError): string[] {
  const matches = problem.extensions.matches as Record<string, string[]> | undefined;
  return matches ? [...new Set(Object.values(matches).flat())] : [];
}

/** True when an If-None-Match header names this entity tag (or is `*`). */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function schemaFor<P extends string>(route: LookupRoute<P>) {
  const problem = { $ref: 'Problem#' };
  const query = Object.fromEntries(
    route.params.map((p) => [
      p,
      Type.Optional(
        Type.String({ description: route.paramDocs[p].description, examples: [route.paramDocs[p].example] }),
      ),
    ]),
  );
  return {
    summary: route.summary,
    tags: ['lookups'],
    security: [{ bearer: [] }],
    querystring: Type.Object(query, { additionalProperties: false }),
    response: {
      200: route.record,
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

/** Registers GET (and HEAD) of a lookup under `path` and `/v1/path`, and a 405 for every other method. */
export function registerLookup<P extends string>(
  app: FastifyInstance,
  route: LookupRoute<P>,
  deps: LookupDeps,
) {
  const { store, limiter, quota, metrics, meter, audit, accounting } = deps;

  async function lookup(request: FastifyRequest, reply: FastifyReply, seen: Seen) {
    const match = await identifyKey(store, request.headers.authorization);
    seen.keyId = match.key.id;
    requireLive(match);
    const key = match.key;
    reply.headers(await admit(limiter, key));
    requireScope(key, route.scope);
    const given = parseLookupQuery(request.query as Record<string, unknown>, route.params);
    const keys = given.map(([name, raw]): [string, LookupKey] => [name, route.toKey(name, raw)]);
    const ticket: QuotaTicket | null = await quota.reserve(key);
    // Settled before replying, matched or not, so that every keyed response carries the remainder.
    const settle = (matched: boolean) => {
      if (ticket) reply.header('enrich-quota-remaining', String(ticket.settle(matched)));
    };
    const { record, matchedBy } = await resolve(store, route.entity, keys).then(
      (resolved) => {
        settle(true);
        return resolved;
      },
      (error: unknown) => {
        settle(false);
        throw error;
      },
    );
    seen.matched = [record.id];
    reply.header('etag', record.etag).header('enrich-matched-by', matchedBy.join(', '));
    return notModified(request.headers['if-none-match'], record.etag)
      ? { status: 304 }
      : { status: 200, record };
  }

  /** Counts and audits a keyed lookup: in memory, unless the audit buffer is full and must be written first. */
  async function observe(request: FastifyRequest, seen: Seen, status: number, outcome: UsageOutcome) {
    if (outcome !== 'failed') metrics.lookups.inc({ entity: route.entity, outcome });
    if (seen.keyId === undefined || !accounting) return;
    meter.record(seen.keyId, route.operation, outcome);
    const query = request.query as Record<string, unknown>;
    const wait = audit.record({
      at: new Date().toISOString(),
      key_id: seen.keyId,
      operation: route.operation,
      params: route.params.filter((p) => query[p] !== undefined),
      matched: seen.matched,
      status,
    });
    if (wait) await wait.catch((error) => request.log.error({ err: error }, 'audit write failed'));
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const seen: Seen = { keyId: undefined, matched: [] };
    let found: Awaited<ReturnType<typeof lookup>>;
    try {
      found = await lookup(request, reply, seen);
    } catch (error) {
      const problem = toProblem(error);
      if (problem.code === 'ambiguous_match') seen.matched = idsListed(problem);
      const outcome: LookupOutcome | 'failed' =
        problem.status >= 500 ? 'failed' : (OUTCOME_BY_CODE[problem.code] ?? 'rejected');
      await observe(request, seen, problem.status, outcome);
      throw error;
    }
    // Recorded before replying: under backpressure the caller waits, and a reply is never seen unaudited.
    await observe(request, seen, found.status, 'matched');
    if (!found.record) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(found.record.body);
  };

  const methodNotAllowed = (request: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      request,
      reply.header('allow', ALLOW),
      new ProblemError('method_not_allowed', `${request.method} is not allowed here; use GET.`),
    );

  for (const url of [route.path, `/v1${route.path}`]) {
    app.route({
      method: 'GET',
      url,
      schema: { ...schemaFor(route), hide: url !== route.path },
      // Our own strict parser gives clearer errors than schema validation (contract §3).
      validatorCompiler: () => () => true,
      handler,
    });
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      schema: { hide: true },
      handler: methodNotAllowed,
    });
  }
}
