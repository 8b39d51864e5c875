// A key's monthly search allowance: the results (previews) its searches return, counted as its matched
// lookups are — by the same quota counter, kept in quota_use — under a key id of their own, `search:<id>`.
import { ProblemError } from '../errors.js';
import { allowanceId } from '../store/accounting.js';
import type { ApiKey } from '../store/keys.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import type { QuotaCounter, QuotaGrant } from './quota.js';

/** The key as the quota counter sees its search allowance: its own id, and the allowance as its quota. */
const allowanceOf = (key: ApiKey): ApiKey => ({
  ...key,
  id: allowanceId(key.id),
  quota: key.search_quota ?? null,
});

/** The 402 of a search whose key has no results left this month; the problem names the allowance. */
export function searchQuotaExceeded(allowance: number, period: string): ProblemError {
  return new ProblemError(
    'quota_exceeded',
    `This key's search allowance of ${allowance} results for ${period} is used up.`,
    { search_quota: allowance },
    { 'enrich-search-quota-remaining': '0' },
  );
}

/**
 * Reserves up to `results` of the key's allowance for one search: null for a key without one; a 402 when
 * none is left. Settle the grant with the results returned.
 */
export function reserveResults(
  quota: QuotaCounter,
  key: ApiKey,
  results: number,
  now = new Date(),
): MaybePromise<QuotaGrant | null> {
  const granted = (grant: QuotaGrant | null) => {
    if (grant === null || grant.granted > 0) return grant;
    grant.settle(0);
    throw searchQuotaExceeded(key.search_quota!, now.toISOString().slice(0, 7));
  };
  const grant = quota.reserveItems(allowanceOf(key), results);
  return isPromise(grant) ? grant.then(granted) : granted(grant);
}
