// Identifiers the generator mints from record numbers: ids, LinkedIn slug codes — unique by construction.
import { ID_SPACE } from './numbering.js';
import { mix32, weights } from './random.js';

const MILLION = 1_000_000;

/**
 * (number × factor + offset) mod 10^12, with the number split so that no product passes 2^53. A factor
 * coprime to 10 makes it a permutation of the id space: ids look scattered yet never repeat.
 */
function scatter(number: number, factor: number, offset: number): string {
  const high = Math.floor(number / MILLION);
  const low = number % MILLION;
  const value = (((high * factor) % MILLION) * MILLION + low * factor + offset) % ID_SPACE;
  return String(value).padStart(12, '0');
}

/** `f` + 12 digits, e.g. `f000000117274` for record number 0. */
export const companyId = (number: number) => `f${scatter(number, 48_271, 117_274)}`;

/** `fp` + 12 digits, e.g. `fp000000067890` for record number 0. */
export const personId = (number: number) => `fp${scatter(number, 69_317, 67_890)}`;

const HALF = 2 ** 20;
const ROUND_KEYS = [0x736c7567, 0x2c1b3c6d, 0x297a2d39, 0x68e31da4];

/** A bijection on [0, 2^40), which holds every record number: four Feistel rounds over 20-bit halves. */
function permute40(number: number): number {
  let left = Math.floor(number / HALF);
  let right = number % HALF;
  for (const key of ROUND_KEYS) {
    const mixed = (left ^ mix32(right ^ key)) & (HALF - 1);
    left = right;
    right = mixed;
  }
  return left * HALF + right;
}

const LATIN_EXTRAS: Readonly<Record<string, string>> = { ø: 'o', æ: 'ae', ß: 'ss', đ: 'd', ł: 'l', œ: 'oe' };

// Inputs come from bounded word pools, so memoising the Unicode work is cheap and pays for itself.
const memo = (transform: (text: string) => string) => {
  const seen = new Map<string, string>();
  return (text: string): string => {
    let out = seen.get(text);
    if (out === undefined) {
      if (seen.size >= 100_000) seen.clear();
      out = transform(text);
      seen.set(text, out);
    }
    return out;
  };
};

/** Lower-case ASCII letters only: `Nguyễn` → `nguyen`, `O'Brien` → `obrien`. */
export const asciiLetters = memo((text) =>
  text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[øæßđłœ]/g, (c) => LATIN_EXTRAS[c] ?? '')
    .replace(/[^a-z]/g, ''),
);

/** Words of a name as a lower-case, NFC, hyphen-joined slug that keeps non-ASCII letters. */
export const unicodeSlug = memo((text) =>
  text
    .normalize('NFC')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, ''),
);

/**
 * A person's LinkedIn slug: name words then a code of eight base-36 characters. The code is the last
 * hyphen-free segment and a bijection of the record number, so slugs never repeat, across data sets too.
 * @example personSlug('José', 'García', 7) // e.g. 'josé-garcía-0k3xq1mz'
 */
export function personSlug(first: string, last: string, number: number): string {
  const code = permute40(number).toString(36).padStart(8, '0');
  return `${unicodeSlug(first)}-${unicodeSlug(last)}-${code}`;
}

export type EmailFormat = 'first.last' | 'flast' | 'first' | 'firstl' | 'first_last' | 'f.last';

export const EMAIL_FORMATS = weights<EmailFormat>([
  ['first.last', 58],
  ['flast', 14],
  ['first', 8],
  ['firstl', 5],
  ['first_last', 6],
  ['f.last', 9],
]);

/** The letters of a work address before any disambiguating digits; `first` and `last` are ASCII letters. */
export function emailLetters(format: EmailFormat, first: string, last: string): string {
  const f = first || 'staff';
  const l = last || 'member';
  switch (format) {
    case 'first.last':
      return `${f}.${l}`;
    case 'flast':
      return `${f[0]}${l}`;
    case 'first':
      return f;
    case 'firstl':
      return `${f}${l[0]}`;
    case 'first_last':
      return `${f}_${l}`;
    case 'f.last':
      return `${f[0]}.${l}`;
  }
}

/** A domain label from a trading name's words, at most `max` letters, ending on a word boundary. */
export function domainLabel(words: readonly string[], max = 22): string {
  let label = '';
  for (const word of words) {
    const letters = asciiLetters(word);
    if (label && label.length + letters.length > max) break;
    label += letters;
  }
  return label.slice(0, max) || 'company';
}

/** Hyphen-joined ASCII words, for company LinkedIn slugs and social handles. */
export function asciiSlug(words: readonly string[]): string {
  return words.join(' ').split(' ').map(asciiLetters).filter(Boolean).join('-') || 'company';
}
