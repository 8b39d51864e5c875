// A line's id read without parsing it: the same id JSON.parse finds, for any line among others in a buffer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineId } from '../../src/ingest/line-id.js';

/** The id JSON finds in a line, or undefined: what lineId must agree with. */
function parsedId(line: string): string | undefined {
  try {
    const id = (JSON.parse(line) as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Each line's id, read from one buffer holding them all (as a chunk of a file holds them). */
function idsInBuffer(lines: string[]): Array<string | undefined> {
  const buffer = Buffer.from(lines.join('\n'));
  const ids: Array<string | undefined> = [];
  let start = 0;
  for (const line of lines) {
    const end = start + Buffer.byteLength(line);
    ids.push(lineId(buffer, start, end));
    start = end + 1;
  }
  return ids;
}

/** A record line: an id (escapes and all), then fields that may hold backslashes and quotes. */
const recordLine = fc
  .record({ id: fc.string(), rest: fc.dictionary(fc.string(), fc.string()) })
  .map(({ id, rest }) => JSON.stringify({ id, ...rest }));

describe('lineId', () => {
  it('reads the id of the documented shape, whatever follows it', () => {
    const lines = ['{"id":"p_1","note":"a\\\\b"}', '{"id":"p_2"}', '{"id":"a\\"b","x":1}'];
    expect(idsInBuffer(lines)).toEqual(['p_1', 'p_2', 'a"b']);
  });

  it('agrees with JSON.parse for any record line among others', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(recordLine, fc.string()), { minLength: 1, maxLength: 8 }), (lines) => {
        const single = lines.map((line) => line.replaceAll('\n', ' '));
        expect(idsInBuffer(single)).toEqual(single.map(parsedId));
      }),
    );
  });

  it('gives undefined for a line without a string id', () => {
    expect(idsInBuffer(['{"id":7}', '{"name":"x"}', 'not json', '{"id":"unterminated'])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('reads a line shorter than the shape at the very end of its buffer (a file whose last line is `{}`)', () => {
    expect(idsInBuffer(['{}'])).toEqual([undefined]);
    expect(idsInBuffer(['{"id":"p_1"}', '{"id"'])).toEqual(['p_1', undefined]);
  });
});
