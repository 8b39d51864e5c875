// What readiness means, for /readyz and the enrich_ready metric alike: the store answers, and this process
// can write its accounting journal (without it every keyed request is refused).
import type { Accounting } from './accounting/accounting.js';
import { ProblemError } from './errors.js';
import type { HealthStore } from './store/health.js';
import type { Store } from './store/store.js';
import { StoreUnavailableError } from './store/unavailable.js';

/** A store that may serve lookups from a local index while its database is away (PostgreSQL). */
type ReadinessStore = HealthStore & Pick<Store, 'localStatus'>;

/**
 * Why the service answers in part (ready for lookups, not for everything): PostgreSQL unreachable while
 * lookups answer from the local index, or the index not followed; undefined when nothing is wrong.
 */
export function degraded(store: ReadinessStore): string | undefined {
  const local = store.localStatus?.();
  if (local?.problem === undefined || !local.serving) return undefined;
  return `PostgreSQL unreachable (${local.problem}): lookups answer from the local index, writes fail`;
}

/** Why the service is not ready: the problem /readyz answers; undefined when it is ready. */
export async function notReady(store: ReadinessStore, accounting: Accounting | undefined): Promise<unknown> {
  const journal = accounting?.health?.problem;
  if (journal !== undefined) {
    return new ProblemError(
      'unavailable',
      `The accounting journal cannot be written (${journal}): keyed requests are refused until it can.`,
      {},
      { 'retry-after': '5' },
    );
  }
  try {
    await store.ping();
    return undefined;
  } catch (error) {
    // Lookups by known keys still answer, from the local index: degraded, not down.
    if (store.localStatus?.()?.serving) return undefined;
    return new StoreUnavailableError({ cause: error });
  }
}
