// The admin API's key actions, as the `enrich keys` commands take them: a body read into a key request or
// changes, checked as the commands check their options, and carried out over the keys role.
import { issueKey, parseDuration, parseScopes, rotateKey } from '../auth/keys.js';
import { ProblemError } from '../errors.js';
import type { AccountingStore } from '../store/accounting.js';
import type { KeyChanges, KeyStore, StoredKey } from '../store/keys.js';
import type { Scope } from '../vocabulary/operations.js';
import { type KeyReport, keyReport } from './key-report.js';

type AdminStore = KeyStore & Pick<AccountingStore, 'usage' | 'quotaUsed'>;

/** How long a rotated-out token keeps working when the request does not say: as `enrich keys rotate`. */
export const DEFAULT_GRACE = '24h';

const invalid = (member: string, detail: string) =>
  new ProblemError('invalid_body', `${member}: ${detail}`, { parameter: member });

/** The body as an object of members; none (an empty POST) is an empty one. */
function members(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ProblemError('invalid_body', 'Send a JSON object.');
  }
  return body as Record<string, unknown>;
}

/** Refuses members the action does not take, naming the ones it does. */
function onlyMembers(body: Record<string, unknown>, accepted: readonly string[]) {
  const unknown = Object.keys(body).find((name) => !accepted.includes(name));
  if (unknown !== undefined) {
    throw new ProblemError('invalid_body', `Unknown member "${unknown}"; accepted: ${accepted.join(', ')}.`, {
      parameter: unknown,
      accepted,
    });
  }
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('name', 'expected a non-empty string');
  // Counted in characters (code points), as the document's maxLength counts them.
  if ([...value].length > 200) throw invalid('name', 'at most 200 characters');
  return value;
}

function wholeNumber(member: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(member, 'expected a whole number ≥ 1');
  }
  return value;
}

function scopesOf(value: unknown): Scope[] {
  if (!Array.isArray(value) || value.some((scope) => typeof scope !== 'string')) {
    throw invalid('scopes', 'expected an array of scopes');
  }
  try {
    return parseScopes(value.join(','));
  } catch (error) {
    throw invalid('scopes', (error as Error).message);
  }
}

function futureDate(value: unknown, now: Date): Date {
  const date = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw invalid('expires_at', 'expected an ISO date such as 2027-01-31 or 2027-01-31T12:00:00Z, or null');
  }
  if (date.getTime() <= now.getTime()) throw invalid('expires_at', 'the expiry date is in the past');
  return date;
}

const KEY_MEMBERS = ['name', 'scopes', 'rate', 'quota', 'expires_at'] as const;

/** The changes a PATCH body asks for: each member given, null removing a quota or an expiry. */
export function keyChangesOf(body: unknown, now = new Date()): KeyChanges {
  const given = members(body);
  onlyMembers(given, KEY_MEMBERS);
  const changes: KeyChanges = {};
  if (given.name !== undefined) changes.name = nameOf(given.name);
  if (given.scopes !== undefined) changes.scopes = scopesOf(given.scopes);
  if (given.rate !== undefined) changes.rate = wholeNumber('rate', given.rate);
  if (given.quota !== undefined)
    changes.quota = given.quota === null ? null : wholeNumber('quota', given.quota);
  if (given.expires_at !== undefined) {
    changes.expires_at = given.expires_at === null ? null : futureDate(given.expires_at, now).toISOString();
  }
  if (Object.keys(changes).length === 0) {
    throw new ProblemError('invalid_body', `Give at least one of ${KEY_MEMBERS.join(', ')}.`, {
      accepted: KEY_MEMBERS,
    });
  }
  return changes;
}

/** A key created from a POST body (`name` required); its token is in the answer, and nowhere else. */
export async function createKey(
  store: AdminStore,
  body: unknown,
  defaultRate: number | undefined,
  now = new Date(),
) {
  const given = members(body);
  onlyMembers(given, KEY_MEMBERS);
  if (given.name === undefined) throw invalid('name', 'required');
  const changes = keyChangesOf(given, now);
  const { key, token } = await issueKey(
    store,
    {
      name: changes.name!,
      scopes: changes.scopes,
      rate: changes.rate ?? defaultRate,
      quota: changes.quota ?? null,
      expiresAt: changes.expires_at ? new Date(changes.expires_at) : null,
    },
    now,
  );
  const stored: StoredKey = { ...key, previous_hash: null, previous_expires_at: null };
  return { ...(await keyReport(store, stored, now)), token };
}

/** The key of an id, or the 404 every key action answers for an id that names none. */
export async function knownKey(store: KeyStore, id: string): Promise<StoredKey> {
  const key = await store.getKey(id);
  if (!key) throw new ProblemError('not_found', `There is no key ${id}.`);
  return key;
}

const revoked = (id: string, what: string) => new ProblemError('key_revoked', `Key ${id} ${what}.`);

/** Changes a key's settings; its token stays the same. */
export async function updateKey(store: AdminStore, id: string, body: unknown): Promise<KeyReport> {
  const changes = keyChangesOf(body);
  await knownKey(store, id);
  if (!(await store.updateKey(id, changes))) throw revoked(id, 'is revoked: its settings cannot change');
  return keyReport(store, await knownKey(store, id));
}

/** Gives a key a new token (in the answer, once); the old one works for `grace` (default 24h). */
export async function rotate(store: AdminStore, id: string, body: unknown) {
  const given = members(body);
  onlyMembers(given, ['grace']);
  const grace = given.grace ?? DEFAULT_GRACE;
  let graceMs: number;
  try {
    if (typeof grace !== 'string') throw new Error('expected a duration such as 30m, 24h or 7d');
    graceMs = parseDuration(grace);
  } catch (error) {
    throw invalid('grace', (error as Error).message);
  }
  await knownKey(store, id);
  const rotated = await rotateKey(store, id, graceMs);
  if (!rotated) throw revoked(id, 'is revoked: it cannot be rotated');
  return { ...(await keyReport(store, rotated.key)), token: rotated.token };
}

/** Revokes a key: its next request is a 401. */
export async function revoke(store: AdminStore, id: string): Promise<KeyReport> {
  await knownKey(store, id);
  if (!(await store.revokeKey(id, new Date()))) throw revoked(id, 'is revoked already');
  return keyReport(store, await knownKey(store, id));
}
