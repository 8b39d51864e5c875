// JSON as text, before or instead of parsing it: how deep it nests (request bodies and imported records alike
// are refused past a depth), and where it stops being JSON — the JSON path being read and the position.
// JSON.parse says neither portably (V8's messages differ by version, and quote the text), so a scan that
// follows the grammar finds the place; it runs only once JSON.parse has failed, or once the cheap scan of
// the nesting has found a level too deep.

/**
 * Levels of nested arrays and objects a request body or an imported record may hold. The deepest path
 * the records' schema names is six levels down (`nextGen.web_traffic.traffic_share.countries.…`), a bulk
 * item's parameters three; code that walks a parsed value (a projection, JSON.stringify) recurses, and
 * a value nested many thousands of levels deep would exhaust its stack.
 */
export const MAX_JSON_DEPTH = 32;

/** The code units of JSON's punctuation, for scans of its text. */
export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_ARRAY = 0x5b;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_ARRAY = 0x5d;
export const CLOSE_OBJECT = 0x7d;

/** The offset of the `"` that ends the string opened at `open`, or -1 when it is never closed. */
export function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * The offset of the first `[` or `{` that opens a level deeper than `maxDepth`, or undefined when there
 * is none. Brackets inside strings do not count. The text need not be valid JSON: the scan stops at the
 * first level too deep, so a body of millions of `[` costs `maxDepth` steps, and any other text one
 * pass, strings skipped with `indexOf`.
 * @example nestingBeyond('[[1]]', 1) // 1
 */
export function nestingBeyond(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return i;
    } else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && depth > 0) depth--;
  }
  return undefined;
}

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
