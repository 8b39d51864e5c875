// A request body's JSON, or the 400 that says where it stops being JSON or nests too deep (path, line and
// column), in a few hundred characters whatever the body.
import type { ProblemError } from '../errors.js';
import { invalidBody } from '../lookup/bulk-request.js';
import { locateSyntaxError, MAX_JSON_DEPTH, nestingBeyond } from '../schemas/json-text.js';

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
