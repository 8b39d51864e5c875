// Where a text stops being JSON: the JSON path being read and the position, for a 400 that says where.
// JSON.parse says neither portably (V8's messages differ by version, and quote the text), so a scan
// that follows the grammar finds the place; it runs only once JSON.parse has failed, or once a cheap
// scan has found the text nested deeper than a body may be.
import type { ProblemError } from '../errors.js';
import { invalidBody } from '../lookup/bulk-request.js';
import { MAX_JSON_DEPTH, nestingBeyond } from '../schemas/json-nesting.js';

/** The first place a text departs from the JSON grammar. */
export interface JsonSyntaxError {
  /** The JSON path of the value being read there, e.g. `$.requests[3].params`. */
  path: string;
  /** Offset in characters from the start of the text. */
  position: number;
  /** 1-based line and column of the position. */
  line: number;
  column: number;
  /** What was expected, for people to read. */
  expected: string;
  /** True when the text is (so far) JSON, but nests arrays and objects deeper than allowed there. */
  tooDeep?: true;
}

interface Frame {
  kind: 'object' | 'array';
  /** The member being read (objects), or the element's index (arrays). */
  key: string | undefined;
  index: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a JSON string may not hold a control character.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

/** The path of the value being read; of its container only, when `member` is false (between members). */
function pathOf(stack: Frame[], member: boolean): string {
  let path = '$';
  for (const [depth, frame] of stack.entries()) {
    if (!member && depth === stack.length - 1) break;
    if (frame.kind === 'array') path += `[${frame.index}]`;
    else if (frame.key !== undefined)
      path += IDENTIFIER.test(frame.key) ? `.${frame.key}` : `[${JSON.stringify(frame.key)}]`;
  }
  return path;
}

/** The length of the token `pattern` matches at `at`, or -1. */
function tokenAt(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  return match ? match[0].length : -1;
}

/**
 * The first syntax error of a text, or undefined when it is one JSON value (as JSON.parse reads it).
 * An array or object opened deeper than `maxDepth` levels is an error too (`tooDeep`). Iterative, so
 * that deep nesting cannot exhaust the stack.
 * @example locateSyntaxError('{"requests":[{"params":}]}')
 * // { path: '$.requests[0].params', position: 23, line: 1, column: 24, expected: 'a value' }
 */
export function locateSyntaxError(
  text: string,
  maxDepth = Number.POSITIVE_INFINITY,
): JsonSyntaxError | undefined {
  const stack: Frame[] = [];
  let i = 0;
  const skip = () => {
    i += tokenAt(WHITESPACE, text, i);
  };
  const fail = (expected: string, member = true): JsonSyntaxError => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - before.lastIndexOf('\n');
    return { path: pathOf(stack, member), position: i, line, column, expected };
  };
  let state: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skip();
    const top = stack.at(-1);
    if (state === 'key') {
      const length = tokenAt(STRING, text, i);
      if (length < 0) return fail('a member name in double quotes');
      top!.key = JSON.parse(text.slice(i, i + length)) as string;
      i += length;
      skip();
      if (text[i] !== ':') return fail("':' after the member name");
      i++;
      state = 'value';
    } else if (state === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        if (stack.length >= maxDepth) {
          return { ...fail(`at most ${maxDepth} levels of nested arrays and objects`), tooDeep: true };
        }
        stack.push({ kind: c === '{' ? 'object' : 'array', key: undefined, index: 0 });
        i++;
        skip();
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          stack.pop();
          state = 'after';
        } else state = c === '{' ? 'key' : 'value';
        continue;
      }
      let length = c === '"' ? tokenAt(STRING, text, i) : tokenAt(NUMBER, text, i);
      if (length < 0 || length === 0) {
        const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
        length = literal?.length ?? -1;
      }
      if (length < 0)
        return fail(c === '"' ? 'a string with valid escapes and no control characters' : 'a value');
      i += length;
      state = 'after';
    } else {
      if (top === undefined) return i < text.length ? fail('the end of the text after the value') : undefined;
      const close = top.kind === 'object' ? '}' : ']';
      if (text[i] === close) {
        i++;
        stack.pop();
      } else if (text[i] === ',') {
        i++;
        top.index++;
        top.key = undefined;
        state = top.kind === 'object' ? 'key' : 'value';
      } else return fail(`',' or '${close}'`, false);
    }
  }
}

/** The 400 of a text that is not JSON, or nests deeper than `maxDepth`: where, and what was expected. */
function notJson(json: string, maxDepth: number, line: number | undefined): ProblemError {
  if (json.trim() === '') return invalidBody('$', 'the body is empty; send {"requests": [...]}.');
  const error = locateSyntaxError(json, maxDepth) ?? {
    path: '$',
    position: 0,
    line: 1,
    column: 1,
    expected: 'JSON',
  };
  const where = { position: error.position, line: line ?? error.line, column: error.column };
  const at = `at line ${where.line}, column ${where.column}`;
  if (error.tooDeep) {
    return invalidBody(
      error.path,
      `arrays and objects nest deeper than ${maxDepth} levels ${at}; a body holds at most ${maxDepth}.`,
      { ...where, max_depth: maxDepth },
    );
  }
  return invalidBody(error.path, `not valid JSON ${at}: expected ${error.expected}.`, where);
}

/**
 * The 400 of a body that nests arrays and objects deeper than `maxDepth` levels (or that is not JSON
 * before it gets there), or undefined when it does not: a cheap scan that stops at the first level too
 * deep, to run before a parser builds the value.
 */
export function nestingProblem(text: string, maxDepth = MAX_JSON_DEPTH): ProblemError | undefined {
  return nestingBeyond(text, maxDepth) === undefined ? undefined : notJson(text, maxDepth, undefined);
}

/**
 * A request body's JSON value, or a 400 naming where the text stops being JSON (path, line and column),
 * or where it nests deeper than `maxDepth` levels (checked first). `line` numbers a text that is one line
 * of a stream. A leading byte order mark is ignored.
 */
export function parseJsonText(text: string, line?: number, maxDepth = MAX_JSON_DEPTH): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (nestingBeyond(json, maxDepth) === undefined) {
    try {
      return JSON.parse(json);
    } catch {}
  }
  throw notJson(json, maxDepth, line);
}
