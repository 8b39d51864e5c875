// The audit log's segments on SQLite (src/store/sql/audit-segment.ts): packing, unpacking with and without a
// filter, the record-id hash, and where a batch of entries is cut into segments.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  packSegment,
  recordHash,
  SEGMENT_ENTRIES,
  SEGMENT_SPAN_MS,
  type SegmentRow,
  segmentRuns,
  unpackSegment,
} from '../../../src/store/sql/audit-segment.js';

const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((t) => !t.includes(','));
const row: fc.Arbitrary<SegmentRow> = fc.record({
  key_id: fc.oneof(fc.constantFrom('key_7GdK2mQx9a', 'key_b'), text),
  operation: fc.constantFrom('people', 'company', 'people.bulk'),
  params: fc.array(text, { maxLength: 3 }).map((p) => p.join(',')),
  matched: fc
    .array(fc.oneof(fc.constantFrom('fp1', 'fp10', 'fp11', 'fp931700067890'), text), { maxLength: 4 })
    .map((ids) => ids.join(',')),
  status: fc.constantFrom(200, 304, 400, 404, 409, 429),
});
const time = fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 });
const rows = fc.array(fc.tuple(row, time), { minLength: 1, maxLength: 300 });

describe('audit segments', () => {
  it('give back every entry as packed, in order, at any size and with any text', () => {
    fc.assert(
      fc.property(rows, (pairs) => {
        const packed = packSegment(
          pairs.map(([r]) => r),
          pairs.map(([, at]) => at),
        );
        expect(unpackSegment(packed.body)).toEqual(pairs.map(([r, atMs], index) => ({ ...r, atMs, index })));
        expect(packed.entries).toBe(pairs.length);
        expect(packed.firstAt).toBe(Math.min(...pairs.map(([, at]) => at)));
        expect(packed.lastAt).toBe(Math.max(...pairs.map(([, at]) => at)));
        expect(new Set(packed.keys)).toEqual(new Set(pairs.map(([r]) => r.key_id)));
        const ids = pairs.flatMap(([r]) => (r.matched === '' ? [] : r.matched.split(',')));
        expect(new Set(packed.recordHashes)).toEqual(new Set(ids.map(recordHash)));
      }),
      { numRuns: 200 },
    );
  });

  it('unpack only the entries a filter keeps: a time, a key, a whole record id of the list', () => {
    fc.assert(
      fc.property(
        rows,
        fc.record(
          {
            since: time,
            keyId: fc.constantFrom('key_7GdK2mQx9a', 'key_b', 'key_none'),
            recordId: fc.constantFrom('fp1', 'fp10', 'fp9', 'fp931700067890'),
          },
          { requiredKeys: [] },
        ),
        (pairs, filter) => {
          const packed = packSegment(
            pairs.map(([r]) => r),
            pairs.map(([, at]) => at),
          );
          const all = unpackSegment(packed.body);
          const kept = all.filter(
            (e) =>
              (filter.since === undefined || e.atMs >= filter.since) &&
              (filter.keyId === undefined || e.key_id === filter.keyId) &&
              (filter.recordId === undefined || e.matched.split(',').includes(filter.recordId)),
          );
          expect(unpackSegment(packed.body, filter)).toEqual(kept);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('find a record id only as a whole item of a list', () => {
    const packed = packSegment(
      [
        { key_id: 'k', operation: 'people', params: 'id', matched: 'fp10,fp110', status: 409 },
        { key_id: 'k', operation: 'people', params: 'id', matched: 'fp1', status: 200 },
        { key_id: 'k', operation: 'people', params: 'id', matched: 'xfp1,fp1x', status: 409 },
      ],
      [1, 2, 3],
    );
    expect(unpackSegment(packed.body, { recordId: 'fp1' }).map((e) => e.index)).toEqual([1]);
    expect(unpackSegment(packed.body, { recordId: 'fp10' }).map((e) => e.index)).toEqual([0]);
    expect(unpackSegment(packed.body, { recordId: 'fp2' })).toEqual([]);
  });

  it('refuse a body they did not pack', () => {
    expect(() => unpackSegment(Buffer.of(7, 1, 2))).toThrow(/unknown kind/);
    const packed = packSegment(
      [{ key_id: 'k', operation: 'people', params: '', matched: '', status: 200 }],
      [0],
    );
    expect(() => unpackSegment(packed.body.subarray(0, packed.body.length - 1))).toThrow(RangeError);
  });

  it('cut a batch into runs in order, each at most SEGMENT_ENTRIES long and SEGMENT_SPAN_MS wide', () => {
    const times = fc.array(
      fc.oneof(fc.integer({ min: 0, max: 3 * SEGMENT_SPAN_MS }), fc.constant(SEGMENT_SPAN_MS)),
      { maxLength: 5_000 },
    );
    fc.assert(
      fc.property(times, (atMs) => {
        const runs = segmentRuns(atMs);
        expect(
          runs.flatMap(([start, end]) => Array.from({ length: end - start }, (_, i) => start + i)),
        ).toEqual(atMs.map((_, i) => i));
        for (const [start, end] of runs) {
          expect(end - start).toBeGreaterThan(0);
          expect(end - start).toBeLessThanOrEqual(SEGMENT_ENTRIES);
          const run = atMs.slice(start, end);
          expect(Math.max(...run) - Math.min(...run)).toBeLessThanOrEqual(SEGMENT_SPAN_MS);
        }
      }),
      { numRuns: 100 },
    );
    // A fold's entries, a fraction of a second apart, are one segment up to SEGMENT_ENTRIES.
    expect(segmentRuns(Array.from({ length: 600 }, (_, i) => 1_000_000 + i / 10))).toEqual([
      [0, SEGMENT_ENTRIES],
      [SEGMENT_ENTRIES, 2 * SEGMENT_ENTRIES],
      [2 * SEGMENT_ENTRIES, 600],
    ]);
  });
});
