// How far a parse thread runs ahead of the writer: by what its batches hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchWeight, RunAhead } from '../../src/ingest/run-ahead.js';

const batch = (records: number, rejections = 0) => ({
  records: Array.from({ length: records }),
  rejections: Array.from({ length: rejections }),
});

/** How many batches of `weight` go before the thread must wait, none taken. */
function sentBeforeWaiting(ahead: RunAhead, weight: number): number {
  let sent = 0;
  while (ahead.open && sent < 1_000_000) {
    ahead.sent(weight);
    sent++;
  }
  return sent;
}

describe('RunAhead', () => {
  const limit = 2 * (1000 + 1);

  it('lets two full batches of a first import go ahead, as before', () => {
    expect(sentBeforeWaiting(new RunAhead(limit), batchWeight(batch(1000)))).toBe(2);
  });

  it("lets a refresh's batches of a few changed records go on far ahead", () => {
    expect(sentBeforeWaiting(new RunAhead(limit), batchWeight(batch(20)))).toBe(Math.ceil(limit / 21));
    expect(sentBeforeWaiting(new RunAhead(limit), batchWeight(batch(0)))).toBe(limit);
  });

  it('counts rejected lines as held', () => {
    expect(sentBeforeWaiting(new RunAhead(limit), batchWeight(batch(0, 1000)))).toBe(2);
  });

  it('sends a batch heavier than the limit alone', () => {
    const ahead = new RunAhead(10);
    expect(sentBeforeWaiting(ahead, 50)).toBe(1);
    ahead.taken();
    expect(ahead.open).toBe(true);
  });

  it('frees the oldest batch sent when the writer takes one', () => {
    const ahead = new RunAhead(100);
    ahead.sent(90);
    ahead.sent(5);
    ahead.sent(5);
    expect(ahead.open).toBe(false);
    ahead.taken(); // the 90
    expect(ahead.open).toBe(true);
    ahead.sent(80);
    expect(ahead.open).toBe(true);
    ahead.sent(10);
    expect(ahead.open).toBe(false);
  });

  it('holds what was sent and not taken, never more than the limit and one batch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.constant('take' as const)), {
          maxLength: 200,
        }),
        (limit, steps) => {
          const ahead = new RunAhead(limit);
          const untaken: number[] = [];
          for (const step of steps) {
            if (step === 'take') {
              if (untaken.length === 0) continue;
              untaken.shift();
              ahead.taken();
            } else if (ahead.open) {
              untaken.push(step);
              ahead.sent(step);
            }
            const held = untaken.reduce((sum, w) => sum + w, 0);
            expect(ahead.open).toBe(held < limit);
            expect(held).toBeLessThan(limit + Math.max(0, ...untaken));
          }
        },
      ),
    );
  });
});
