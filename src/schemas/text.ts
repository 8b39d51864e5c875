// What a request's text values must be, as the parsers check them and the OpenAPI document states it: the
// document's schemas are built here so that a client generated from it sends nothing the server refuses.
import { type StringOptions, Type } from '@sinclair/typebox';

/** The longest text value a lookup or a search takes. */
export const MAX_TEXT_LENGTH = 2048;

/** Something besides white space: a value of spaces alone is empty. */
const NOT_BLANK = '\\S';
/** A letter or a digit: a text searched word by word must hold a word. */
const A_WORD = '[\\p{L}\\p{N}]';

/** A text value: 1 to 2,048 characters, not all white space. */
export const Text = (options: StringOptions = {}) =>
  Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, pattern: NOT_BLANK, ...options });

/** A text searched word by word: as Text, holding at least one letter or digit. */
export const Words = (options: StringOptions = {}) => Text({ pattern: A_WORD, ...options });

/** The forms of identifiers, white space around them ignored: a record's id (1 to 64 letters, digits, `_` or `-`). */
export const RECORD_ID: StringOptions = { pattern: '^\\s*[A-Za-z0-9_-]{1,64}\\s*$' };
/** A SHA-256 digest in hex, either case. */
export const SHA256: StringOptions = { pattern: '^\\s*[0-9a-fA-F]{64}\\s*$' };
/** An e-mail address (name@domain.tld). */
export const EMAIL: StringOptions = { format: 'email' };

/** A record's id as a parameter. */
export const RecordIdParam = (options: StringOptions = {}) => Text({ ...RECORD_ID, ...options });

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A comma-separated list of some of `names` (white space around each, and empty items, ignored); with
 * `atLeastOne`, naming at least one of them.
 */
export function NameList(names: readonly string[], atLeastOne: boolean, options: StringOptions = {}) {
  const name = `(?:${names.map(escaped).join('|')})`;
  // Each item is its leading spaces, then perhaps a name and its trailing spaces: one way to match, no backtracking.
  const item = `\\s*(?:${name}\\s*)?`;
  const pattern = atLeastOne ? `^(?:\\s*,)*\\s*${name}\\s*(?:,${item})*$` : `^${item}(?:,${item})*$`;
  return Type.String({ maxLength: MAX_TEXT_LENGTH, pattern, ...options });
}

/** What the document says of a lookup parameter: what it is, an example, and the form its values have. */
export interface ParamDoc {
  description: string;
  example: string;
  /** A pattern or format the value must have (besides being 1 to 2,048 characters, not all white space). */
  form?: StringOptions;
}

/** A lookup parameter's schema: its text, of its form, described. */
export const Param = ({ description, example, form }: ParamDoc, options: StringOptions = {}) =>
  Text({ description, examples: [example], ...form, ...options });
