// What readiness means, for /readyz and the enrich_ready metric alike: the store answers, this process can
// write its accounting journal (without it every keyed request is refused), and its limits can be checked.
import type { Accounting } from './accounting/accounting.js';
import { messageOf, ProblemError } from './errors.js';
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
  /** `pingFailed`: the store's ping has just failed, which its own checks may not have seen yet. */
  store?: ((pingFailed?: unknown) => Degradation | undefined) | undefined;
}

/**
 * The store's part: PostgreSQL unreachable while lookups answer from the local index (ready, degraded), or
 * nothing to say. A store without a local index in service is told by its ping alone. The local index
 * finds PostgreSQL gone at its next round; a ping that failed before then tells it sooner.
 */
export function localIndexStanding(
  store: Pick<Store, 'localStatus'>,
  pingFailed?: unknown,
): Degradation | undefined {
  const local = store.localStatus?.();
  if (local === undefined || !local.serving) return undefined;
  const problem = local.problem ?? (pingFailed === undefined ? undefined : messageOf(pingFailed));
  if (problem === undefined) return undefined;
  return {
    reason: `postgres: unreachable (${problem}); lookups answer from the local index, writes fail`,
    refusing: false,
  };
}

/**
 * What /readyz answers: the problem that makes the service not ready, or the parts it is degraded in (with
 * Redis unreachable and ENRICH_REDIS_FAILURE=open, each server limits keys to its share in its own memory,
 * and still serves; with PostgreSQL unreachable, lookups answer from the local index and writes fail).
 */
export async function readiness(
  store: HealthStore,
  accounting: Accounting | undefined,
  standing: Standing = {},
): Promise<{ problem?: unknown; degraded: string[] }> {
  const journal = accounting?.health?.problem;
  if (journal !== undefined) {
    const detail = `The accounting journal cannot be written (${journal}): keyed requests are refused until it can.`;
    return { problem: new ProblemError('unavailable', detail, {}, { 'retry-after': '5' }), degraded: [] };
  }
  const limits = standing.limits?.();
  if (limits?.refusing) {
    const problem = new ProblemError('unavailable', `${limits.reason}.`, {}, { 'retry-after': '1' });
    return { problem, degraded: [] };
  }
  let pingFailed: unknown;
  try {
    await store.ping();
  } catch (error) {
    pingFailed = error ?? new Error('the store did not answer');
  }
  const storePart = standing.store?.(pingFailed);
  // Lookups by known keys still answer, from the local index: degraded, not down.
  if (pingFailed !== undefined && storePart === undefined)
    return { problem: new StoreUnavailableError({ cause: pingFailed }), degraded: [] };
  const degraded = [storePart, limits]
    .filter((part): part is Degradation => part !== undefined && !part.refusing)
    .map((part) => part.reason);
  return { degraded };
}

/** Why the service is not ready: the problem /readyz answers; undefined when it is ready. */
export async function notReady(
  store: HealthStore,
  accounting: Accounting | undefined,
  standing: Standing = {},
): Promise<unknown> {
  return (await readiness(store, accounting, standing)).problem;
}
