// Suppressions for the admin API, as `enrich suppress` and `unsuppress` take them: an entity and identifiers
// by their lookup parameter names, each normalised as a lookup would; what a suppression deletes, shown
// before (a dry run) or after it.
import { ProblemError } from '../errors.js';
import { COMPANY_PARAMS, type LookupKey, PERSON_PARAMS } from '../identifiers/params.js';
import { applySuppression, liftSuppression, planSuppression, suppressionKey } from '../privacy/suppress.js';
import { suppressionHash } from '../privacy/suppression.js';
import type { RecordStore } from '../store/records.js';
import type { SuppressionStore } from '../store/suppression.js';
import { ENTITIES, type Entity } from '../vocabulary/entities.js';

type PrivacyStore = RecordStore & SuppressionStore;

const paramsOf = (entity: Entity): readonly string[] =>
  entity === 'people' ? PERSON_PARAMS : COMPANY_PARAMS;

/** The entity named, or a 400 naming the accepted ones. */
export function entityOf(value: unknown, problem: 'invalid_body' | 'invalid_parameter'): Entity {
  if (typeof value === 'string' && (ENTITIES as readonly string[]).includes(value)) return value as Entity;
  throw new ProblemError(problem, `entity: expected one of ${ENTITIES.join(', ')}`, {
    parameter: 'entity',
    accepted: ENTITIES,
  });
}

/**
 * The identifiers given besides `entity` (and the members `also` names), each normalised as a lookup would:
 * at least one, every name a lookup parameter of the entity.
 */
export function identifiersGiven(
  entity: Entity,
  given: Record<string, unknown>,
  problem: 'invalid_body' | 'invalid_parameter',
  also: readonly string[] = [],
): Array<[string, LookupKey]> {
  const accepted = paramsOf(entity);
  const keys: Array<[string, LookupKey]> = [];
  for (const [name, value] of Object.entries(given)) {
    if (name === 'entity' || also.includes(name)) continue;
    if (!accepted.includes(name)) {
      throw new ProblemError(
        problem === 'invalid_body' ? 'invalid_body' : 'unknown_parameter',
        `Unknown ${problem === 'invalid_body' ? 'member' : 'parameter'} "${name}"; accepted: entity, ${accepted.join(', ')}.`,
        { parameter: name, accepted: ['entity', ...accepted] },
      );
    }
    if (typeof value !== 'string') {
      throw new ProblemError(problem, `${name}: expected a string`, { parameter: name });
    }
    // The lookup's own 400 when the value does not normalise, naming the parameter, never quoting it.
    keys.push([name, suppressionKey(entity, name, value)]);
  }
  if (keys.length === 0) {
    throw new ProblemError('missing_identifier', `Give at least one identifier: ${accepted.join(', ')}.`, {
      accepted,
    });
  }
  return keys;
}

/** What suppressing by one identifier deleted (or, in a dry run, would delete). */
export interface SuppressionDone {
  parameter: string;
  /** The records found, deleted unless a dry run. */
  record_ids: string[];
  /** How many identifier hashes the suppression keeps. */
  hashes: number;
}

/** Suppresses by each identifier in turn; `dryRun` only says what it would delete. */
export async function suppress(
  store: PrivacyStore,
  entity: Entity,
  keys: Array<[string, LookupKey]>,
  dryRun: boolean,
): Promise<SuppressionDone[]> {
  const done: SuppressionDone[] = [];
  for (const [parameter, key] of keys) {
    let plan: Awaited<ReturnType<typeof planSuppression>>;
    try {
      plan = await planSuppression(store, entity, key);
    } catch (error) {
      // planSuppression's own refusal (too many records) is a plain Error; a store's failure is not.
      if (!(error instanceof Error) || error.name !== 'Error') throw error;
      throw new ProblemError('invalid_parameter', `${parameter}: ${error.message}`, { parameter });
    }
    if (!dryRun) await applySuppression(store, entity, plan);
    done.push({ parameter, record_ids: plan.ids, hashes: plan.hashes.length });
  }
  return done;
}

/** Lifts the suppressions holding each identifier; says how many hashes each removed. */
export async function unsuppress(store: PrivacyStore, entity: Entity, keys: Array<[string, LookupKey]>) {
  const done: Array<{ parameter: string; hashes_removed: number }> = [];
  for (const [parameter, key] of keys) {
    done.push({ parameter, hashes_removed: await liftSuppression(store, entity, key) });
  }
  return done;
}

/**
 * Whether each identifier is suppressed, or, without any, how many hashes each entity keeps: the store
 * holds only one-way hashes, so a suppression is found by the identifier it was made with.
 */
export async function suppressionStatus(
  store: PrivacyStore,
  entity: Entity | undefined,
  keys: Array<[string, LookupKey]>,
) {
  if (entity === undefined || keys.length === 0) {
    const counts: Record<string, number> = {};
    for (const each of entity === undefined ? ENTITIES : [entity]) {
      counts[each] = (await store.suppressedHashes(each)).size;
    }
    return { hashes: counts };
  }
  const hashes = await store.suppressedHashes(entity);
  return {
    entity,
    identifiers: keys.map(([parameter, key]) => ({
      parameter,
      suppressed: hashes.has(suppressionHash(key.kind, key.value)),
    })),
  };
}
