// How a keyed request's status is metered in usage: matched, not found, ambiguous, rejected or failed.
import type { LookupOutcome } from '../metrics.js';
import { type Operation, QUOTA_OPERATIONS } from '../vocabulary/operations.js';

/** A lookup's outcome as metered; `failed` (a 5xx) counts as a request and nothing else. */
export type UsageOutcome = LookupOutcome | 'failed';

/** 200/304 matched, 404 not found, 409 ambiguous, another 4xx rejected, a 5xx failed. */
export function outcomeOf(status: number): UsageOutcome {
  if (status === 200 || status === 304) return 'matched';
  if (status === 404) return 'not_found';
  if (status === 409) return 'ambiguous';
  return status >= 500 ? 'failed' : 'rejected';
}

/**
 * A keyed request's outcome as metered: a lookup's by its status; a search's `200` is `matched` when it
 * returned at least one record and `not_found` when none.
 */
export function usageOutcome(operation: Operation, status: number, returnedAny: boolean): UsageOutcome {
  const outcome = outcomeOf(status);
  if (outcome !== 'matched' || QUOTA_OPERATIONS.includes(operation)) return outcome;
  return returnedAny ? 'matched' : 'not_found';
}
