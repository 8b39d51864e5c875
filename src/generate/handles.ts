// Identifiers the generator mints: record ids, domains, slugs and e-mail local parts, unique by construction.
import { mix32, weights } from './random.js';

const ID_SPACE = 1_000_000_000_000;

/** Largest record count for which ids and slug codes stay unique (codes are 32-bit). */
export const MAX_RECORDS = 4_000_000_000;

// Multiplying by a constant coprime to 10^12 permutes the id space, so ids look scattered yet never repeat.
const scatter = (index: number, factor: number, offset: number) =>
  String((index * factor + offset) % ID_SPACE).padStart(12, '0');

/** `f` + 12 digits, e.g. `f000000117274`. */
export const companyId = (index: number) => `f${scatter(index, 48_271, 117_274)}`;

/** `fp` + 12 digits, e.g. `fp000000067890`. */
export const personId = (index: number) => `fp${scatter(index, 69_317, 67_890)}`;

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
 * A person's LinkedIn slug: name words then a code unique to the index. The code is the last
 * hyphen-free segment and a bijection of the index (under `key`), so slugs never repeat.
 * @example personSlug('José', 'García', 7, key) // e.g. 'josé-garcía-1mh2wpu'
 */
export function personSlug(first: string, last: string, index: number, key: number): string {
  // Zero-padding keeps the code a bijection and gives every slug a code of realistic length.
  const code = mix32(index ^ key)
    .toString(36)
    .padStart(6, '0');
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
