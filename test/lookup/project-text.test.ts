// Projecting a stored record's text onto a selection: what parsing and re-serialising it would give, from the
// record's own bytes, however deep it nests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldTree } from '../../src/lookup/fields.js';
import { projectRecord } from '../../src/lookup/project-text.js';

/** The projection of a parsed value, as it was computed before: objects keep their order, arrays map. */
function projectValue(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((item) => projectValue(item, tree));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const selected = tree.get(key);
    if (selected !== undefined) out[key] = selected === true ? inner : projectValue(inner, selected);
  }
  return out;
}

const KEYS = ['id', 'a', 'b', 'c', 'é "q"', '\\'];
const key = fc.constantFrom(...KEYS);
const tree: fc.Arbitrary<FieldTree> = fc.letrec((tie) => ({
  tree: fc
    .array(fc.tuple(key, fc.oneof({ depthSize: 'small' }, fc.constant(true as const), tie('tree'))), {
      maxLength: 4,
    })
    .map((entries) => new Map(entries as Array<[string, FieldTree | true]>)),
})).tree;
const record = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('projecting a record as text', () => {
  it('gives what parsing, projecting and serialising it gives', () => {
    fc.assert(
      fc.property(fc.dictionary(key, record, { maxKeys: 5 }), tree, (value, selection) => {
        const text = JSON.stringify(value);
        expect(projectRecord(text, selection)).toBe(JSON.stringify(projectValue(value, selection)));
        const spaced = JSON.stringify(value, null, 2);
        // Compared as JSON gives it back: the text writes -0 as 0, and toEqual tells them apart.
        const expected = JSON.parse(JSON.stringify(projectValue(value, selection)));
        expect(JSON.parse(projectRecord(` ${spaced}\n`, selection))).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps each selected value as stored: numbers, escapes and spacing', () => {
    const stored = '{"id":"f1", "n": 1.50, "s": "caf\\u00e9", "o": { "x" : [1, 2] }, "skip": {"y": 1e3}}';
    const selection: FieldTree = new Map<string, FieldTree | true>([
      ['id', true],
      ['n', true],
      ['s', true],
      ['o', true],
    ]);
    expect(projectRecord(stored, selection)).toBe(
      '{"id":"f1","n":1.50,"s":"caf\\u00e9","o":{ "x" : [1, 2] }}',
    );
  });

  it('copies a value nested 200,000 levels deep without walking it', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const stored = `{"id":"f1","name":"Deep","nextGen":{"web_traffic":{"countries":${deep}}},"x":1}`;
    const selection: FieldTree = new Map<string, FieldTree | true>([
      ['id', true],
      ['name', true],
      ['nextGen', true],
    ]);
    expect(projectRecord(stored, selection)).toBe(stored.replace(',"x":1}', '}'));
    const inside: FieldTree = new Map<string, FieldTree | true>([
      ['nextGen', new Map([['web_traffic', true]])],
    ]);
    expect(projectRecord(stored, inside)).toBe(`{"nextGen":{"web_traffic":{"countries":${deep}}}}`);
    expect(projectRecord(`{"a":${deep}}`, new Map([['a', new Map()]]))).toBe(`{"a":${deep}}`);
  });
});
