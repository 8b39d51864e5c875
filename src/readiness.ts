// What readiness means, for /readyz and the enrich_ready metric alike: the store answers, and this process
// can write its accounting journal (without it every keyed request is refused).
import type { Accounting } from './accounting/accounting.js';
import { ProblemError } from './errors.js';
import type { HealthStore } from './store/health.js';
import { StoreUnavailableError } from './store/unavailable.js';

/** Why the service is not ready: the problem /readyz answers; undefined when it is ready. */
export async function notReady(store: HealthStore, accounting: Accounting | undefined): Promise<unknown> {
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
    return new StoreUnavailableError({ cause: error });
  }
}
