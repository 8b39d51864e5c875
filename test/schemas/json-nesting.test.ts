import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingBeyond } from '../../src/schemas/json-nesting.js';

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
