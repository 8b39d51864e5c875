import { describe, expect, it } from 'vitest';
import { BodyBuilder, lengthOf, release } from '../../src/http/bytes.js';

const text = (views: Buffer[]) => Buffer.concat(views).toString('utf8');

describe('a body built from text and bytes', () => {
  it('holds the pieces in order, bytes as given and text as UTF-8, across segments', () => {
    const body = new BodyBuilder();
    const record = Buffer.from(`{"name":"Zoë 😀","pad":"${'x'.repeat(100_000)}"}`);
    const expected: string[] = [];
    for (let i = 0; i < 8; i++) {
      body.text(`{"ref":"ré-${i}","record":`);
      body.bytes(record);
      body.text('}');
      expected.push(`{"ref":"ré-${i}","record":${record.toString('utf8')}}`);
    }
    const views = body.take();
    expect(views.length).toBeGreaterThan(1);
    expect(text(views)).toBe(expected.join(''));
    expect(lengthOf(views)).toBe(Buffer.byteLength(expected.join('')));
  });

  it('takes a text longer than a segment whole, and starts over after take', () => {
    const body = new BodyBuilder();
    const long = 'é'.repeat(300_000);
    body.text('[');
    body.text(long);
    body.text(']');
    expect(text(body.take())).toBe(`[${long}]`);
    body.text('next');
    expect(text(body.take())).toBe('next');
  });

  it('reuses released segments for later bodies, never those still held', () => {
    const first = new BodyBuilder();
    first.text('a'.repeat(1000));
    const held = first.take();
    const second = new BodyBuilder();
    second.text('b');
    expect(second.take()[0]!.buffer).not.toBe(held[0]!.buffer);
    release(held);
    const third = new BodyBuilder();
    third.text('c');
    expect(third.take()[0]!.buffer).toBe(held[0]!.buffer);
  });
});
