// Names of people and companies folded for matching: case, accents and punctuation dropped, a full name split
// into first and last, a company name without its legal suffix (Pty Ltd, Limited, Inc, Co …).

/** Letters that carry no combining accent in Unicode's decomposition, and what they fold to. */
const UNDECOMPOSED: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};
const COMBINING_MARKS = /\p{M}+/gu;
const UNDECOMPOSED_LETTERS = /[ßæœøłđðþı]/g;
/** Inside a word: apostrophes, dots and hyphens join (O'Brien, J.R., Smith-Jones); anything else splits. */
const JOINERS = /['’‘`.\-‐‑–]/g;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const PLAIN = /^[A-Za-z]+$/;

/**
 * The words of a name, folded: lower case, accents dropped, punctuation within a word removed.
 * @example nameWords("  Zoë O'Brien-Smith ") // ['zoe', 'obriensmith']
 */
export function nameWords(raw: string): string[] {
  // Most names are plain ASCII letters: nothing to decompose, nothing to fold but case.
  if (PLAIN.test(raw)) return [raw.toLowerCase()];
  const folded = raw
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(UNDECOMPOSED_LETTERS, (letter) => UNDECOMPOSED[letter]!)
    .replace(JOINERS, '');
  return folded.split(SEPARATORS).filter((word) => word.length > 0);
}

/** Words before a name that are no part of it, and after it. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'dame']);
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'esq']);

/** A name's words without a leading title or trailing suffixes (never all of them). */
function bareWords(raw: string): string[] {
  const words = nameWords(raw);
  let start = 0;
  let end = words.length;
  while (end - start > 1 && SUFFIXES.has(words[end - 1]!)) end--;
  while (end - start > 1 && TITLES.has(words[start]!)) start++;
  return words.slice(start, end);
}

export interface NameParts {
  /** The folded first given name (a single letter for an initial). */
  first: string;
  /** The folded last name's keys: all its words joined, and its last word alone when it has several. */
  last: string[];
}

/**
 * The first name and last-name keys of a person given as first and last name: middle names (in either)
 * are ignored, a multi-word last name (van der Berg) is keyed whole and by its last word. Undefined when
 * either part has no letter or digit.
 * @example nameParts('José María', 'van der Berg') // { first: 'jose', last: ['vanderberg', 'berg'] }
 */
export function nameParts(first: string, last: string): NameParts | undefined {
  const firstWords = bareWords(first);
  const lastWords = bareWords(last);
  if (firstWords.length === 0 || lastWords.length === 0) return undefined;
  return { first: firstWords[0]!, last: lastKeys(lastWords) };
}

/**
 * The folded first given name of a first name as written (a title before it dropped); undefined when it
 * has no letter or digit. As nameParts' `first`.
 * @example firstNameKey('Dr Zoë Anne') // 'zoe'
 */
export function firstNameKey(first: string): string | undefined {
  return bareWords(first)[0];
}

function lastKeys(words: string[]): string[] {
  const whole = words.join('');
  return words.length > 1 ? [whole, words.at(-1)!] : [whole];
}

/**
 * A full name split into its first word and its last (middle names, a title and suffixes ignored);
 * undefined when it has fewer than two words.
 * @example splitFullName('Dr Robert J. Smith Jr') // { first: 'robert', last: ['smith'] }
 */
export function splitFullName(full: string): NameParts | undefined {
  const words = bareWords(full);
  if (words.length < 2) return undefined;
  return { first: words[0]!, last: [words.at(-1)!] };
}

/** Legal suffixes dropped from the end of a company name, any number of them (Pty. Ltd., Co. Inc.). */
const LEGAL_SUFFIXES = new Set([
  'pty',
  'ltd',
  'limited',
  'proprietary',
  'inc',
  'incorporated',
  'co',
  'corp',
  'corporation',
  'llc',
  'plc',
  'nl',
]);

/**
 * A company name folded for matching: words as for person names, legal suffixes dropped from its end (never
 * its first word), words joined by single spaces; undefined when nothing is left.
 * @example companyNameKey('Acme Holdings Pty. Ltd.') // 'acme holdings'
 */
export function companyNameKey(raw: string): string | undefined {
  const words = nameWords(raw);
  let end = words.length;
  while (end > 1 && LEGAL_SUFFIXES.has(words[end - 1]!)) end--;
  return end === 0 ? undefined : words.slice(0, end).join(' ');
}

/** The value of a name-at-company identifier: the company's key, then a last-name key. */
export const nameAtCompany = (company: string, last: string) => `${company}|${last}`;
