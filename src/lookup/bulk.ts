// A bulk's items, looked up in order: each answered as its single GET would be, the key's quota met item by
// item as a run of single GETs would meet it, and what each item discloses for the audit. No HTTP.
import type { ProblemError } from '../errors.js';
import { isPromise, type MaybePromise } from '../store/maybe-promise.js';
import { type ItemOutcome, type ItemStatus, idsListed } from './item.js';

/** How an item of a bulk ended: an item's own status, or past the key's monthly quota (its GET's 402). */
export type BulkStatus = ItemStatus | 'quota_exceeded';

export type BulkOutcome = ItemOutcome | { status: 'quota_exceeded'; problem: ProblemError };

/** How many items ended each way: every status is present, 0 when none. */
export type BulkSummary = Record<BulkStatus, number>;

/** The outcomes of items looked up one by one, at once when every one answered at once (SQLite). */
export function allOutcomes(outcomes: Array<MaybePromise<ItemOutcome>>): MaybePromise<ItemOutcome[]> {
  for (const outcome of outcomes) if (isPromise(outcome)) return Promise.all(outcomes);
  return outcomes as ItemOutcome[];
}

/**
 * Meets the key's quota in item order, in place. An item whose params were valid is refused with `exceeded`
 * (the GET's 402) once as many earlier items have matched as the quota granted; a match counts against the
 * grant; invalid params stay a 400, as the GET parses before it reserves. `granted` is null for a key
 * without a quota. Returns how many items matched (to settle the grant).
 */
export function meetQuota(
  outcomes: BulkOutcome[],
  granted: number | null,
  exceeded: () => ProblemError,
): number {
  let matched = 0;
  for (let i = 0; i < outcomes.length; i++) {
    const outcome = outcomes[i]!;
    if (outcome.status === 'invalid') continue;
    if (granted !== null && matched >= granted) {
      outcomes[i] = { status: 'quota_exceeded', problem: exceeded() };
    } else if (outcome.status === 'matched') matched++;
  }
  return matched;
}

/** The HTTP status the single GET answers for an item ending this way. */
export function statusOf(outcome: BulkOutcome): number {
  return outcome.status === 'matched' ? 200 : outcome.problem.status;
}

/** The record ids an item disclosed, as the audit keeps them: its record's, or the ids a 409 listed. */
export function disclosedIds(outcome: BulkOutcome): string[] {
  if (outcome.status === 'matched') return [outcome.record.id];
  return outcome.status === 'ambiguous' ? idsListed(outcome.problem) : [];
}

export const emptySummary = (): BulkSummary => ({
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  invalid: 0,
  quota_exceeded: 0,
});
