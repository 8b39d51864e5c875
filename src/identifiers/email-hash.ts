// Hashed e-mail addresses: the lower-case hex SHA-256 of an address normalised as a lookup normalises it,
// so that a caller can match people without sending (or even holding) the address itself.
import { hash } from 'node:crypto';
import { accept, type Normalised, reject } from './normalised.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The kind under which each kind of address is also indexed, by its hash. */
export const HASHED_KIND = {
  work_email: 'work_email_sha256',
  personal_email: 'personal_email_sha256',
} as const;

/**
 * The hash stored and looked up for an address already normalised by `parseEmail`.
 * @example emailSha256('jane.citizen@acme.com.au') // '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d'
 */
export const emailSha256 = (normalised: string): string => hash('sha256', normalised, 'hex');

/**
 * A hash as a caller gives it: 64 hex digits, trimmed; upper case is folded to lower.
 * @example parseEmailSha256(' 94B55C72…2EEE2D ') // { ok: true, value: '94b55c72…2eee2d' }
 */
export function parseEmailSha256(input: string): Normalised {
  const value = input.trim().toLowerCase();
  if (SHA256_HEX.test(value)) return accept(value);
  return reject(
    'not a SHA-256 hash (expected 64 hex digits: the SHA-256 of the trimmed, lower-cased address)',
  );
}
