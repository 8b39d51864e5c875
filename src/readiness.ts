// What readiness means, for /readyz and the enrich_ready metric alike: the store answers, this process can
// write its accounting journal (without it every keyed request is refused), and its limits can be checked.
import type { Accounting } from './accounting/accounting.js';
import { ProblemError } from './errors.js';
import type { HealthStore } from './store/health.js';
import type { Store } from './store/store.js';
import { StoreUnavailableError } from './store/unavailable.js';

/** A part that works, but not as it should: what /readyz names while still answering 200, or 503 when refusing. */
export interface Degradation {
  reason: string;
  /** True when keyed requests are refused meanwhile: the service is not ready. */
  refusing: boolean;
}

/**
 * Parts that may be degraded: the limits, when shared through Redis; the store, when PostgreSQL is away and
 * lookups answer from the local index.
 */
export interface Standing {
  limits?: (() => Degradation | undefined) | undefined;
  store?: (() => Degradation | undefined) | undefined;
}

/**
 * The store's part: PostgreSQL unreachable while lookups answer from the local index (ready, degraded), or
 * nothing to say. A store without a local index in service is told by its ping alone.
 */
export function localIndexStanding(store: Pick<Store, 'localStatus'>): Degradation | undefined {
  const local = store.localStatus?.();
  if (local?.problem === undefined || !local.serving) return undefined;
  return {
    reason: `postgres: unreachable (${local.problem}); lookups answer from the local index, writes fail`,
    refusing: false,
  };
}

/** Why the service is not ready: the problem /readyz answers; undefined when it is ready. */
export async function notReady(
  store: HealthStore,
  accounting: Accounting | undefined,
  standing: Standing = {},
): Promise<unknown> {
  const journal = accounting?.health?.problem;
  if (journal !== undefined) {
    return new ProblemError(
      'unavailable',
      `The accounting journal cannot be written (${journal}): keyed requests are refused until it can.`,
      {},
      { 'retry-after': '5' },
    );
  }
  const limits = standing.limits?.();
  if (limits?.refusing)
    return new ProblemError('unavailable', `${limits.reason}.`, {}, { 'retry-after': '1' });
  try {
    await store.ping();
    return undefined;
  } catch (error) {
    // Lookups by known keys still answer, from the local index: degraded, not down.
    if (standing.store?.() !== undefined) return undefined;
    return new StoreUnavailableError({ cause: error });
  }
}

/**
 * Why a ready service is degraded: with Redis unreachable and ENRICH_REDIS_FAILURE=open, each server limits
 * keys to its share in its own memory, and still serves; with PostgreSQL unreachable, lookups answer from
 * the local index and writes fail. Empty when nothing is.
 */
export function degradations(standing: Standing = {}): string[] {
  return [standing.store?.(), standing.limits?.()]
    .filter((part): part is Degradation => part !== undefined && !part.refusing)
    .map((part) => part.reason);
}
