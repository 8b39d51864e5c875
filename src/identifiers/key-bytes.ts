// How long a normalised identifier may be, in bytes: index keys are bounded in bytes, and a character of a
// slug or an address may take up to four of them (1,400 `€` are 4,200 bytes).
import { type Normalised, reject } from './normalised.js';

/**
 * The most UTF-8 bytes of a normalised identifier: more than any real one holds (an e-mail address is at
 * most 254, a LinkedIn slug about 100), and well within every index that keys on it — the serving index's
 * LMDB keys (at most 1,978 bytes), a PostgreSQL B-tree entry (2,704).
 */
export const MAX_IDENTIFIER_BYTES = 1024;

/** Why a value too long is refused, as a lookup's 400 says it. */
export const TOO_MANY_BYTES = `longer than ${MAX_IDENTIFIER_BYTES.toLocaleString('en')} bytes once normalised (UTF-8)`;

/** True when a text's UTF-8 form is at most `max` bytes (a code unit is at most 3 of them). */
export const fitsInBytes = (text: string, max: number) =>
  text.length * 3 <= max || Buffer.byteLength(text) <= max;

/**
 * The outcome, unless its value is longer than MAX_IDENTIFIER_BYTES: then a rejection saying so.
 * @example withinKeyLimit(accept('€'.repeat(400))) // { ok: false, reason: 'longer than 1,024 bytes …' }
 */
export function withinKeyLimit(outcome: Normalised): Normalised {
  return !outcome.ok || fitsInBytes(outcome.value, MAX_IDENTIFIER_BYTES) ? outcome : reject(TOO_MANY_BYTES);
}
