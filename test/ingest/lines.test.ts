// Splitting a file's bytes into lines, whatever the chunks: long lines skipped without being held.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/ingest/lines.js';

/** What a splitter makes of `chunks`: each line's text, or null for one longer than `max`. */
function split(chunks: Buffer[], max?: number): Array<string | null> {
  const out: Array<string | null> = [];
  const splitter = new LineSplitter(
    (buffer, start, end) => out.push(buffer.toString('utf8', start, end)),
    max,
    () => out.push(null),
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return out;
}

/** `bytes` cut at the given offsets. */
const cut = (bytes: Buffer, at: number[]) =>
  [0, ...at.map((n) => n % (bytes.length + 1)).sort((a, b) => a - b), bytes.length].flatMap(
    (start, i, all) => (i + 1 < all.length ? [bytes.subarray(start, all[i + 1])] : []),
  );

describe('splitting lines', () => {
  it('gives every line, however the chunks fall, and reports those too long instead', () => {
    const lines = fc.array(fc.stringMatching(/^[a-z€]{0,12}$/), { maxLength: 12 });
    fc.assert(
      fc.property(lines, fc.array(fc.nat(), { maxLength: 8 }), fc.nat(20), (given, at, max) => {
        const text = given.join('\n');
        // A newline ends a line: nothing after the last one is no line.
        const expected = text.split('\n');
        if (expected.at(-1) === '') expected.pop();
        const chunks = cut(Buffer.from(text), at);
        expect(split(chunks)).toEqual(expected);
        expect(split(chunks, max)).toEqual(
          expected.map((line) => (Buffer.byteLength(line) > max ? null : line)),
        );
      }),
    );
  });

  it('does not hold a line longer than the limit, however many chunks it spans', () => {
    const splitter = new LineSplitter(
      () => {},
      10,
      () => {},
    );
    for (let i = 0; i < 1000; i++) splitter.push(Buffer.alloc(1 << 16, 0x61));
    expect((splitter as unknown as { carry: Buffer[] }).carry).toEqual([]);
  });
});
