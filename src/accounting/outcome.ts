// How a keyed lookup's status is metered.
import type { LookupOutcome } from '../metrics.js';

/** A lookup's outcome as metered; `failed` (a 5xx) counts as a request and nothing else. */
export type UsageOutcome = LookupOutcome | 'failed';

/** 200/304 matched, 404 not found, 409 ambiguous, another 4xx rejected, a 5xx failed. */
export function outcomeOf(status: number): UsageOutcome {
  if (status === 200 || status === 304) return 'matched';
  if (status === 404) return 'not_found';
  if (status === 409) return 'ambiguous';
  return status >= 500 ? 'failed' : 'rejected';
}
