// Suppressing a person or company: delete what a lookup by the identifier finds and block its return.
import { emailSha256, HASHED_KIND } from '../identifiers/email-hash.js';
import {
  COMPANY_PARAMS,
  companyLookupKey,
  type LookupKey,
  PERSON_PARAMS,
  personLookupKey,
} from '../identifiers/params.js';
import { companyIdentifiers, personIdentifiers } from '../identifiers/record.js';
import type { RecordStore } from '../store/records.js';
import type { SuppressionStore } from '../store/suppression.js';
import type { Entity, Identifier } from '../vocabulary/entities.js';
import { suppressionHash } from './suppression.js';

/** More records than this sharing one identifier is not a person's data: refuse rather than guess. */
export const MAX_SUPPRESSED_RECORDS = 1000;

const identifiersOf: Record<Entity, (body: string) => Identifier[]> = {
  people: (body) => personIdentifiers(JSON.parse(body)),
  companies: (body) => companyIdentifiers(JSON.parse(body)),
};

const isOneOf = <P extends string>(list: readonly P[], value: string): value is P =>
  (list as readonly string[]).includes(value);

/**
 * A lookup parameter's value normalised exactly as a lookup would; throws the lookup's
 * `invalid_parameter` ProblemError for a value that does not normalise.
 * @example suppressionKey('people', 'work_email', ' Jane@Acme.com.au') // { kind: 'work_email', value: 'jane@acme.com.au' }
 */
export function suppressionKey(entity: Entity, param: string, raw: string): LookupKey {
  if (entity === 'people' && isOneOf(PERSON_PARAMS, param)) return personLookupKey(param, raw);
  if (entity === 'companies' && isOneOf(COMPANY_PARAMS, param)) return companyLookupKey(param, raw);
  throw new Error(`${param} does not identify ${entity}`);
}

/**
 * The hashes a suppression by this key keeps, and that lift it: its own and, for an address, that of the
 * address's hash as `work_email_sha256` or `personal_email_sha256` give it — so suppressing an address
 * and lifting it by its hash (or the other way round) name one suppression.
 */
function keyHashes(key: LookupKey): string[] {
  const own = suppressionHash(key.kind, key.value);
  if (key.kind !== 'work_email' && key.kind !== 'personal_email') return [own];
  return [own, suppressionHash(HASHED_KIND[key.kind], emailSha256(key.value))];
}

/** The ids a lookup by this one key would find, the registrable-domain fallback included. */
export async function recordsFoundBy(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  key: LookupKey,
): Promise<string[]> {
  if (key.kind === 'id') return (await store.getRecord(entity, key.value)) ? [key.value] : [];
  const limit = MAX_SUPPRESSED_RECORDS + 1;
  const ids = await store.findIds(entity, key.kind, key.value, limit);
  if (ids.length > 0 || !('fallback' in key) || key.fallback === undefined) return ids;
  return store.findIds(entity, key.kind, key.fallback, limit);
}

export interface SuppressionPlan {
  /** The records to delete. */
  ids: string[];
  /** The given identifier's hash, and those of each record's id and identifiers. */
  hashes: string[];
}

/**
 * What suppressing `key` means: every record it finds, the hash of the key itself (so a future
 * import is blocked even when nothing matched), and the hash of each record's id and identifiers,
 * except an identifier that other records still carry (a shared inbox): blocking it would silently
 * stop those records' updates.
 */
export async function planSuppression(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  key: LookupKey,
): Promise<SuppressionPlan> {
  const ids = await recordsFoundBy(store, entity, key);
  if (ids.length > MAX_SUPPRESSED_RECORDS) {
    throw new Error(`the identifier matches more than ${MAX_SUPPRESSED_RECORDS} records; refusing`);
  }
  const leaving = new Set(ids);
  const hashes = new Set(keyHashes(key));
  for (const id of ids) {
    const record = await store.getRecord(entity, id);
    if (!record) continue;
    hashes.add(suppressionHash('id', id));
    for (const { kind, value } of identifiersOf[entity](record.body)) {
      const carriers = await store.findIds(entity, kind, value, leaving.size + 1);
      if (carriers.every((carrier) => leaving.has(carrier))) hashes.add(suppressionHash(kind, value));
    }
  }
  return { ids, hashes: [...hashes] };
}

/** Carries out a plan in one transaction; returns how many records were deleted. */
export function applySuppression(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  plan: SuppressionPlan,
): Promise<number> {
  return store.suppress(entity, plan.ids, plan.hashes);
}

/** Forgets every suppression that holds this identifier; returns how many hashes were removed. */
export async function liftSuppression(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  key: LookupKey,
): Promise<number> {
  let removed = 0;
  for (const hash of keyHashes(key)) removed += await store.unsuppress(entity, hash);
  return removed;
}
