import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BodyLine, lineBatches } from '../../src/http/request-body.js';

async function linesOf(chunks: Buffer[], maxLineBytes = 64, maxBatch = 3): Promise<BodyLine[][]> {
  const batches: BodyLine[][] = [];
  for await (const batch of lineBatches(
    Readable.from(chunks, { objectMode: false }),
    maxLineBytes,
    maxBatch,
  )) {
    batches.push(batch);
  }
  return batches;
}

/** The text cut into chunks at the given offsets (bytes, so a character may be split). */
const cut = (text: string, at: number[]) => {
  const bytes = Buffer.from(text);
  const offsets = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...offsets, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : offsets[i - 1], end));
};

describe('the lines of a streamed body', () => {
  it('are the same lines however the body is cut into chunks, blank ones skipped but numbered', async () => {
    const line = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constant(''),
      fc.constant('  \r'),
      fc.constant('zoë 😀'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line.filter((l) => !l.includes('\n'))),
        fc.array(fc.nat()),
        async (lines, at) => {
          const text = lines.join('\n');
          const batches = await linesOf(cut(text, at));
          const expected = lines
            .map((text, i) => ({ number: i + 1, text }))
            .filter(({ text }) => !/^[ \t\r]*$/.test(text));
          expect(batches.flat()).toEqual(expected);
          expect(batches.every((b) => b.length > 0 && b.length <= 3)).toBe(true);
        },
      ),
    );
  });

  it('give a line longer than the limit as too long, without keeping it, and go on with the next', async () => {
    const long = 'x'.repeat(200);
    const batches = await linesOf(cut(`{"a":1}\n${long}\n{"b":2}\n${long}`, [3, 20, 100, 150, 210]));
    expect(batches.flat()).toEqual([
      { number: 1, text: '{"a":1}' },
      { number: 2, tooLong: true },
      { number: 3, text: '{"b":2}' },
      { number: 4, tooLong: true },
    ]);
  });
});
