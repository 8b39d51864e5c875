// Issuing API keys: mint a token, store only its hash, hand the token back once.

import type { ApiKey, KeyStore, StoredKey } from '../store/keys.js';
import { ALL_SCOPES, DEFAULT_SCOPES, type Scope } from '../vocabulary/operations.js';
import { hashToken, mintKeyId, mintToken } from './tokens.js';

export interface KeyRequest {
  name: string;
  scopes?: Scope[];
  rate?: number;
  quota?: number | null;
  /** Search results (previews) per calendar month; none when absent. */
  searchQuota?: number | null;
  expiresAt?: Date | null;
}

export const DEFAULT_RATE = 50;

/** Creates a key; the returned token is not stored anywhere and cannot be shown again. */
export async function issueKey(
  store: KeyStore,
  request: KeyRequest,
  now = new Date(),
): Promise<{ key: ApiKey; token: string }> {
  const token = mintToken();
  const key: ApiKey = {
    id: mintKeyId(),
    name: request.name,
    hash: hashToken(token),
    scopes: request.scopes ?? [...DEFAULT_SCOPES],
    rate: request.rate ?? DEFAULT_RATE,
    quota: request.quota ?? null,
    search_quota: request.searchQuota ?? null,
    created_at: now.toISOString(),
    expires_at: request.expiresAt?.toISOString() ?? null,
    revoked_at: null,
  };
  await store.createKey(key);
  return { key, token };
}

/**
 * Gives a key a new token; the old one keeps working for `graceMs`, then answers 401. The key keeps
 * its id, settings and usage. Undefined when there is no such key or it is revoked.
 * @example const { token } = (await rotateKey(store, 'key_7GdK2mQx9a', 24 * 3600_000))!;
 */
export async function rotateKey(
  store: KeyStore,
  id: string,
  graceMs: number,
  now = new Date(),
): Promise<{ key: StoredKey; token: string } | undefined> {
  const token = mintToken();
  const graceEnds = new Date(now.getTime() + graceMs);
  if (!(await store.rotateKey(id, hashToken(token), graceEnds))) return undefined;
  const key = await store.getKey(id);
  return key && { key, token };
}

const DURATION = /^(\d+)([smhd]?)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration taken: a rotated-out token's grace of a year at most. */
export const MAX_DURATION_DAYS = 365;

/**
 * Parses a duration such as `30m`, `24h` or `7d` (also `s`; a bare `0` is none; at most 365 days) to
 * milliseconds.
 * @example parseDuration('24h') // 86_400_000
 */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match || (match[2] === '' && match[1] !== '0')) {
    throw new Error(`expected a duration such as 30m, 24h or 7d (got "${text}")`);
  }
  const ms = Number(match[1]) * (UNIT_MS[match[2]!] ?? 0);
  // A grace is for moving clients to the new token; a far longer one would end past what a Date holds.
  if (ms > MAX_DURATION_DAYS * UNIT_MS.d!)
    throw new Error(`expected at most ${MAX_DURATION_DAYS}d (got "${text}")`);
  return ms;
}

/** Parses a comma-separated scope list, naming the accepted scopes on error. */
export function parseScopes(list: string): Scope[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new Error(
      `unknown scope ${unknown.join(', ') || '(none given)'}; accepted: ${ALL_SCOPES.join(', ')}`,
    );
  }
  return [...new Set(scopes)] as Scope[];
}

/** The public view of a key (contract §7): never the token or its hash. */
export function publicKey(key: ApiKey) {
  const { id, name, scopes, rate, quota, created_at, expires_at, revoked_at } = key;
  const search_quota = key.search_quota ?? null;
  return { id, name, scopes, rate, quota, search_quota, created_at, expires_at, revoked_at };
}
