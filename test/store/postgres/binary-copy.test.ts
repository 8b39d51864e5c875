// The binary COPY encoder: bytes exactly as PostgreSQL's COPY ... (FORMAT binary) reads them.
import { describe, expect, it } from 'vitest';
import { BinaryCopyEncoder } from '../../../src/store/postgres/binary-copy.js';

describe('binary COPY encoding', () => {
  it('writes the signature, length-prefixed UTF-8 text, big-endian integers and the end marker', () => {
    const encoder = new BinaryCopyEncoder();
    encoder.row(3).int2(2).text('é\t').int8(7);
    const bytes = Buffer.concat(encoder.finish().chunks);
    expect(bytes.subarray(0, 19)).toEqual(Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1'));
    expect([...bytes.subarray(19)]).toEqual([
      ...[0, 3], // fields in the row
      ...[0, 0, 0, 2, 0, 2], // int2 2
      ...[0, 0, 0, 3, 0xc3, 0xa9, 0x09], // 'é\t' as 3 bytes of UTF-8
      ...[0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7], // int8 7
      ...[0xff, 0xff], // end of data
    ]);
  });

  it('writes a text[] as array_recv reads it, and an empty one without dimensions', () => {
    const encoder = new BinaryCopyEncoder();
    encoder.row(2).textArray(['a', 'bc']).textArray([]);
    const bytes = [...Buffer.concat(encoder.finish().chunks).subarray(19)];
    expect(bytes).toEqual([
      ...[0, 2],
      ...[0, 0, 0, 31], // field length
      ...[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25], // one dimension, no nulls, element type text
      ...[0, 0, 0, 2, 0, 0, 0, 1], // two elements from index 1
      ...[0, 0, 0, 1, 0x61, 0, 0, 0, 2, 0x62, 0x63],
      ...[0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25], // no dimensions
      ...[0xff, 0xff],
    ]);
  });

  it('hands out chunks as they fill rather than one buffer for the whole batch', () => {
    const encoder = new BinaryCopyEncoder();
    const body = 'x'.repeat(10_000);
    let chunks = 0;
    for (let i = 0; i < 500; i++) {
      encoder.row(1).text(body);
      chunks += encoder.take().length;
    }
    expect(chunks).toBeGreaterThanOrEqual(4);
    expect(encoder.finish().chunks).toHaveLength(1);
  });
});
