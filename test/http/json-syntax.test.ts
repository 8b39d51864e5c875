import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { locateSyntaxError, nestingProblem, parseJsonText } from '../../src/http/json-syntax.js';
import { clip, MAX_DETAIL_SHOWN, MAX_PATH_SHOWN } from '../../src/lookup/bulk-request.js';
import { MAX_JSON_DEPTH } from '../../src/schemas/json-nesting.js';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('locating a JSON syntax error', () => {
  it('names the JSON path being read and where it is', () => {
    expect(locateSyntaxError('{"requests":[{"params":}]}')).toEqual({
      path: '$.requests[0].params',
      position: 23,
      line: 1,
      column: 24,
      expected: 'a value',
    });
    expect(
      locateSyntaxError('{"requests": [\n  {"params": {"id": "a"}},\n  {"params": {"id": "b"}\n]}'),
    ).toMatchObject({
      path: '$.requests[1]',
      line: 4,
      column: 1,
      expected: "',' or '}'",
    });
    expect(locateSyntaxError('{"fields": ["name" "id"]}')).toMatchObject({
      path: '$.fields',
      expected: "',' or ']'",
    });
    expect(locateSyntaxError('{"requests": [{"params": {"a b": tru}}]}')).toMatchObject({
      path: '$.requests[0].params["a b"]',
      expected: 'a value',
    });
  });

  it('says what it expected at the end of a text cut short, and after a complete value', () => {
    expect(locateSyntaxError('{"requests": [')).toMatchObject({
      path: '$.requests[0]',
      position: 14,
      expected: 'a value',
    });
    expect(locateSyntaxError('{"a": 1,')).toMatchObject({
      path: '$',
      expected: 'a member name in double quotes',
    });
    expect(locateSyntaxError('{} x')).toMatchObject({
      path: '$',
      position: 3,
      expected: 'the end of the text after the value',
    });
    expect(locateSyntaxError('')).toMatchObject({ path: '$', position: 0, expected: 'a value' });
  });

  it('follows deep nesting without exhausting the stack', () => {
    const deep = `${'['.repeat(200_000)}x`;
    expect(locateSyntaxError(deep)).toMatchObject({ position: 200_000, expected: 'a value' });
  });

  it('finds an error exactly when JSON.parse refuses the text', () => {
    const corrupted = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', '}', ']', ',', ':', '"', 'x', '\n', '\\', '01', '-', '1e'),
      )
      .map(([text, at, insert]) => {
        const cut = at % (text.length + 1);
        return text.slice(0, cut) + insert + text.slice(cut + (at % 3 === 0 ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), corrupted, fc.string()), (text) => {
        expect(locateSyntaxError(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });
});

/** The problem a text is refused with. */
const refusal = (text: string): ProblemError => {
  try {
    parseJsonText(text);
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('the text was accepted');
};

describe('JSON nested too deep', () => {
  it('is found at the first level past the limit, with the path that leads there', () => {
    expect(locateSyntaxError('{"a": [[1]]}', 2)).toEqual({
      path: '$.a[0]',
      position: 7,
      line: 1,
      column: 8,
      expected: 'at most 2 levels of nested arrays and objects',
      tooDeep: true,
    });
    expect(locateSyntaxError('{"a": [[1]]}', 3)).toBeUndefined();
  });

  it('is a 400 naming the limit, the line and the column', () => {
    const text = `{"requests": [{"params": ${'{"a": '.repeat(40)}1${'}'.repeat(40)}}]}`;
    const problem = refusal(text);
    expect(problem.code).toBe('invalid_body');
    expect(problem.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels at line 1, column`);
    expect(problem.extensions).toMatchObject({ max_depth: MAX_JSON_DEPTH, line: 1 });
    expect(nestingProblem(text)?.detail).toBe(problem.detail);
    expect(nestingProblem('{"requests": []}')).toBeUndefined();
  });

  it('answers four million brackets with a problem of a few hundred characters', () => {
    const problem = refusal('['.repeat(4_000_000));
    expect((problem.extensions.path as string).length).toBeLessThanOrEqual(MAX_PATH_SHOWN);
    expect(problem.detail.length).toBeLessThanOrEqual(MAX_DETAIL_SHOWN);
    expect(problem.extensions).toMatchObject({ position: MAX_JSON_DEPTH, column: MAX_JSON_DEPTH + 1 });
  });

  it('leaves JSON within the limit to JSON.parse', () => {
    const text = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

describe('a path or detail a problem repeats', () => {
  it('is clipped to a few hundred characters', () => {
    const path = `$${'["a long member name"]'.repeat(100)}`;
    const problem = refusal(`{${'"a long member name": {'.repeat(30)}x`);
    expect(problem.detail.length).toBeLessThanOrEqual(MAX_DETAIL_SHOWN);
    expect(clip(path, MAX_PATH_SHOWN)).toHaveLength(MAX_PATH_SHOWN);
    expect(clip(path, MAX_PATH_SHOWN).endsWith('…')).toBe(true);
    expect(clip('$.a', MAX_PATH_SHOWN)).toBe('$.a');
  });

  it('is never cut inside a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 2, max: 40 }), (text, max) => {
        const clipped = clip(text, max);
        expect(clipped.length).toBeLessThanOrEqual(max);
        expect(wellFormed(clipped)).toBe(wellFormed(text));
      }),
    );
  });
});
