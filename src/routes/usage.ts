// GET /v1/usage: the calling key's own usage this period; any live key, no scope needed, rate-limited.
import type { FastifyInstance } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { mergeUsage, monthStart, sumUsage } from '../accounting/usage-report.js';
import { headers, KEYED, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import type { Usage } from '../schemas/usage.js';
import { allowanceId } from '../store/accounting.js';
import type { Store } from '../store/store.js';
import { QUOTA_OPERATIONS } from '../vocabulary/operations.js';

export interface UsageDeps {
  store: Store;
  /** Folded first, so that the report includes this process's latest lookups. */
  accounting: Accounting | undefined;
}

const responses: Responses = {
  200: {
    description: "The key's usage this month",
    headers: headers(...KEYED, 'Enrich-Quota-Remaining', 'Enrich-Search-Quota-Remaining'),
    content: { 'application/json': { schema: schemaRef('Usage') } },
  },
  401: responseRef('Unauthorized'),
  429: responseRef('RateLimited'),
  '4XX': responseRef('UnreadableRequest'),
  500: responseRef('InternalError'),
  503: responseRef('Unavailable'),
};

export function registerUsage(app: FastifyInstance, { store, accounting }: UsageDeps) {
  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/usage',
      // Any live key may read its own usage.
      scopes: [],
      schema: {
        operationId: 'getUsage',
        summary: "The calling key's usage this month: per day and operation, totals, and quota left",
        tags: ['usage'],
        // Serialises the report; the document shows `x-responses`.
        response: { 200: { $ref: 'Usage#' } },
        'x-responses': responses,
      },
    },
    async (request, reply, { key }): Promise<Usage> => {
      const since = monthStart(new Date());
      // The latest lookups, when the journal can be folded now; else the report reads what is folded.
      await accounting?.foldNow().catch((error: unknown) => {
        request.log.warn({ err: error }, 'usage report: the journal could not be folded first');
      });
      const rows = mergeUsage(await store.usage({ keyId: key.id, since }));
      const totals = sumUsage(rows);
      // Matched lookups are what a quota counts (searches cost nothing), so the metered figure is the quota's.
      const lookups = sumUsage(rows.filter((row) => QUOTA_OPERATIONS.includes(row.operation)));
      const remaining = key.quota === null ? null : Math.max(0, key.quota - lookups.matched);
      if (remaining !== null) reply.header('enrich-quota-remaining', String(remaining));
      const period = since.slice(0, 7);
      const searchQuota = key.search_quota ?? null;
      const searched = searchQuota === null ? 0 : await store.quotaUsed(allowanceId(key.id), period);
      const searchRemaining = searchQuota === null ? null : Math.max(0, searchQuota - searched);
      if (searchRemaining !== null) reply.header('enrich-search-quota-remaining', String(searchRemaining));
      return {
        key_id: key.id,
        period,
        quota: key.quota,
        quota_remaining: remaining,
        search_quota: searchQuota,
        search_quota_remaining: searchRemaining,
        totals,
        days: rows.map(({ key_id: _, ...day }) => day),
      };
    },
  );
}
