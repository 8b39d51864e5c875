// How deep JSON may nest, checked on the text before it is parsed: request bodies and imported records alike.

/**
 * Levels of nested arrays and objects a request body or an imported record may hold. The deepest path
 * the records' schema names is six levels down (`nextGen.web_traffic.traffic_share.countries.…`), a bulk
 * item's parameters three; code that walks a parsed value (a projection, JSON.stringify) recurses, and
 * a value nested many thousands of levels deep would exhaust its stack.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** The offset of the `"` that ends the string opened at `open`, or -1 when it is never closed. */
function stringEnd(text: string, open: number): number {
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
