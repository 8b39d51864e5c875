import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, eventId, eventSeq, renderEvent } from '../../src/changes/render.js';

describe('events as listed and delivered', () => {
  it('render id, type, timestamp and data in that order, the id from the sequence number', () => {
    const event = renderEvent({
      seq: 67890,
      at: '2026-11-25T10:00:00.000Z',
      type: 'person.removed',
      data: { person_id: 'fp000000067890', reason: 'snapshot' },
    });
    expect(JSON.stringify(event)).toBe(
      '{"id":"evt_0000000000067890","type":"person.removed","timestamp":"2026-11-25T10:00:00.000Z",' +
        '"data":{"person_id":"fp000000067890","reason":"snapshot"}}',
    );
  });

  it('give ids that sort as the events commit and read back to their number', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        (a, b) => {
          expect(eventSeq(eventId(a))).toBe(a);
          expect(Math.sign(eventId(a).localeCompare(eventId(b)))).toBe(Math.sign(a - b));
        },
      ),
    );
    expect(eventSeq('evt_12')).toBeUndefined();
  });

  it('resume from cursors of their own making, and refuse any other text', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (seq) => {
        expect(decodeCursor(encodeCursor(seq))).toBe(seq);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const seq = decodeCursor(text);
        if (seq !== undefined) expect(encodeCursor(seq)).toBe(text);
      }),
    );
    expect(decodeCursor(Buffer.from('v1:-1').toString('base64url'))).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
  });
});
