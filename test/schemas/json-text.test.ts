import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateSyntaxError, MAX_JSON_DEPTH, nestingBeyond } from '../../src/schemas/json-text.js';

/** Levels of arrays and objects of a parsed value. */
const depthOf = (value: unknown): number =>
  value !== null && typeof value === 'object'
    ? 1 + Math.max(0, ...Object.values(value as object).map(depthOf))
    : 0;

describe('how deep JSON nests, from its text', () => {
  it('finds the first bracket that opens a level too deep', () => {
    expect(nestingBeyond('[[1]]', 1)).toBe(1);
    expect(nestingBeyond('[[1]]', 2)).toBeUndefined();
    expect(nestingBeyond('{"a":[{"b":{}}]}', 3)).toBe(11);
    expect(nestingBeyond('[], [], []', 1)).toBeUndefined();
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestingBeyond('["[[[[", "\\"[[[", "\\\\", {}]', 1)).toBe(24);
    expect(nestingBeyond('["[[[[", "\\"[[[", "\\\\"]', 1)).toBeUndefined();
    expect(nestingBeyond('"[[[[', 0)).toBeUndefined();
  });

  it('stops at the limit, however deep the text goes', () => {
    const deep = '['.repeat(4_000_000);
    expect(nestingBeyond(deep, MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH);
  });

  it('agrees with the depth of the parsed value for any JSON', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), fc.nat(12), (text, max) => {
        const deeper = depthOf(JSON.parse(text)) > max;
        expect(nestingBeyond(text, max) !== undefined).toBe(deeper);
      }),
      { numRuns: 2000 },
    );
  });
});

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('locating a JSON syntax error', () => {
  it('stops at an array or object opened past a depth limit, with the path that leads there', () => {
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
