// Australian Business Numbers and Company Numbers: normalisation and checksums.
import { accept, type Normalised, reject, valueOrThrow } from './normalised.js';

const ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
const ACN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 1];
const WHITESPACE = /\s+/g;
const ELEVEN_DIGITS = /^\d{11}$/;

/** True when `digits` is 11 digits whose ABN checksum holds. */
export function isValidAbn(digits: string): boolean {
  if (!ELEVEN_DIGITS.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 11; i++) sum += (Number(digits[i]) - (i === 0 ? 1 : 0)) * ABN_WEIGHTS[i]!;
  return sum % 89 === 0;
}

/**
 * Like `normaliseAbn`, but returns an outcome instead of throwing.
 * @example parseAbn('51 824 753 556') // { ok: true, value: '51824753556' }
 */
export function parseAbn(input: string): Normalised {
  const digits = input.replace(WHITESPACE, '');
  if (!ELEVEN_DIGITS.test(digits)) return reject('abn must be 11 digits');
  if (!isValidAbn(digits)) return reject('abn fails the ABN checksum');
  return accept(digits);
}

/**
 * Normalises an ABN as people type it: spaces ignored; 11 digits with a valid checksum, else a 400.
 * @example normaliseAbn('51 824 753 556') // '51824753556'
 */
export function normaliseAbn(input: string): string {
  return valueOrThrow(parseAbn(input));
}

/**
 * Completes a 9-digit body into a valid ABN by choosing its two leading check digits.
 * The check digits 10–99 cover every remainder mod 89, so every body completes; null is unreachable.
 */
export function completeAbn(body: string): string | null {
  if (!/^\d{9}$/.test(body)) throw new Error('ABN body must be 9 digits');
  let rest = 0;
  for (let i = 0; i < 9; i++) rest += Number(body[i]) * ABN_WEIGHTS[i + 2]!;
  for (let check = 10; check <= 99; check++) {
    const first = Math.floor(check / 10) - 1;
    const second = check % 10;
    if ((first * 10 + second + rest) % 89 === 0) return `${check}${body}`;
  }
  return null;
}

/** Completes an 8-digit body into a valid 9-digit ACN by appending its check digit. */
export function completeAcn(body: string): string {
  if (!/^\d{8}$/.test(body)) throw new Error('ACN body must be 8 digits');
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(body[i]) * ACN_WEIGHTS[i]!;
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** True when `digits` is 9 digits whose ACN check digit holds. */
export function isValidAcn(digits: string): boolean {
  return /^\d{9}$/.test(digits) && completeAcn(digits.slice(0, 8)) === digits;
}
