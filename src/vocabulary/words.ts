// Text as the service compares it: words folded for case, accents and punctuation, matched as words or their
// starts (labels of the vocabulary, search filters and the search tables' columns alike).

const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;
/** Printable ASCII, tabs and line breaks: text with no accent or compatibility form to fold. */
const PLAIN = /^[ -~\t\n\r]*$/;
const NOT_PLAIN_WORD = /[^a-z0-9]+/g;

/**
 * The words of a text, folded: compatibility forms and accents decomposed and the accents dropped
 * (NFKD, "José" → "jose", "ﬁ" → "fi"), lower case, and every run of anything that is not a letter or
 * a digit (punctuation, symbols, spaces) made one space. Both stores keep and compare text in this form,
 * so they agree on what matches whatever their own text engines would make of it.
 * @example searchWords('Head of R&D — Engineering') // 'head of r d engineering'
 */
export function searchWords(text: string): string {
  // Most text (every generated record's) is plain ASCII, where the folding below changes case and nothing
  // else: a tenth of the parse threads' time in an import went on folding it the long way.
  if (PLAIN.test(text)) return text.toLowerCase().replace(NOT_PLAIN_WORD, ' ').trim();
  const folded = text.normalize('NFKD').replace(MARKS, '').toLowerCase();
  // Lowering can decompose again ('İ' → 'i' and a combining dot).
  const plain = folded.normalize('NFKD').replace(MARKS, '');
  return plain.replace(NOT_WORD, ' ').trim();
}

/** The distinct words of a text, in the order given. */
export function wordList(text: string): string[] {
  const words = searchWords(text);
  return words === '' ? [] : [...new Set(words.split(' '))];
}

/**
 * A field's words as the search tables store them: each word preceded by one space (`' head of sales'`),
 * so that "a word or the start of one" is the substring `' ' + word`; empty when there is none. With
 * `maxBytes`, only the whole words that fit in that many UTF-8 bytes are kept (for a column that is an
 * index key).
 */
export function storedWords(text: string | null | undefined, maxBytes = Number.POSITIVE_INFINITY): string {
  if (typeof text !== 'string') return '';
  const words = searchWords(text);
  const stored = words === '' ? '' : ` ${words}`;
  if (stored.length * 3 <= maxBytes) return stored;
  const bytes = Buffer.from(stored, 'utf8');
  if (bytes.length <= maxBytes) return stored;
  // The space before the first word that does not fit ends the words that do.
  return bytes.toString('utf8', 0, Math.max(0, bytes.lastIndexOf(0x20, maxBytes)));
}

/**
 * True when every query word occurs in the stored words as a word or the start of one: the semantics
 * of `position` and `q`, which each store's SQL reproduces (`instr`/`strpos` of `' ' + word`).
 * @example matchesWordStarts(storedWords('Engineering Manager'), wordList('eng man')) // true
 */
export function matchesWordStarts(stored: string, words: readonly string[]): boolean {
  return words.every((word) => stored.includes(` ${word}`));
}

/**
 * How strongly stored words match query words: for each word, 2 when it is a whole word of the text,
 * 1 when only the start of one, 0 otherwise. Summed over a record's fields, it ranks `q` results.
 */
export function wordScore(stored: string, words: readonly string[]): number {
  const padded = `${stored} `;
  let score = 0;
  for (const word of words) {
    if (stored.includes(` ${word}`)) score++;
    if (padded.includes(` ${word} `)) score++;
  }
  return score;
}

/**
 * A range label compared as people write it: case and spaces ignored (`11-50` is `11 - 50`, `>$1b+` is
 * `>$1B+`).
 */
export function compactLabel(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, '');
}
