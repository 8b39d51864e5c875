import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { nestingProblem, parseJsonText } from '../../src/http/json-syntax.js';
import { clip, MAX_DETAIL_SHOWN, MAX_PATH_SHOWN } from '../../src/lookup/bulk-request.js';
import { MAX_JSON_DEPTH } from '../../src/schemas/json-text.js';

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
