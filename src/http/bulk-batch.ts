// A batch of a bulk's items looked up for one key: one quota reservation for the batch, each item answered
// as its GET would be, the quota met in item order, and each item audited and metered as a single lookup.
import { quotaExceeded, quotaPeriod } from '../limits/quota.js';
import { allOutcomes, type BulkOutcome, meetQuota } from '../lookup/bulk.js';
import { type ItemOutcome, lookupItem } from '../lookup/item.js';
import type { BulkCall } from './bulk-call.js';

/** One item to look up: its params, the names it gave (audited), or an outcome already decided (a bad line). */
export interface BatchItem {
  params: unknown;
  given: string[];
  decided?: ItemOutcome;
}

export interface BatchAnswer {
  outcomes: BulkOutcome[];
  /** The key's quota left after the batch; undefined for a key without a quota. */
  quotaRemaining: number | undefined;
}

/**
 * Looks up a batch and accounts for each item. A failure of the store rejects (the whole request's 503),
 * with the batch's reservation given back and nothing accounted.
 */
export async function lookupBatch(call: BulkCall, items: readonly BatchItem[]): Promise<BatchAnswer> {
  const key = call.key!;
  const { store, quota } = call.deps;
  const operation = call.operation.lookup;
  const grant = await quota.reserveItems(key, items.length);
  let outcomes: BulkOutcome[];
  try {
    outcomes = await allOutcomes(
      items.map((item) => item.decided ?? lookupItem(store, operation, item.params)),
    );
  } catch (error) {
    grant?.settle(0);
    throw error;
  }
  const exceeded = () => quotaExceeded(key.quota ?? 0, quotaPeriod(new Date()));
  const matched = meetQuota(outcomes, grant ? grant.granted : null, exceeded);
  const quotaRemaining = grant?.settle(matched);
  call.accountItems(items, outcomes);
  return { outcomes, quotaRemaining };
}
