// A record read from the serving index is copied out of lmdb's shared read buffer, which the next read
// overwrites: every record read keeps its own bytes, however many are read after it and whatever their sizes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRow, served } from '../../../src/store/serving/entity.js';

/** Bodies of every size a slab holds, and past it: small, typical, larger than a slab's share, larger than a slab. */
const body = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 1500, maxLength: 3000 }),
  fc.string({ minLength: 17_000, maxLength: 70_000 }),
);
const row = fc.record({
  id: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
  etag: fc.stringMatching(/^"[0-9a-f]{8,40}"$/),
  idents: fc.constant('[[1,"jane@acme.com.au"]]'),
  body: fc.oneof(
    body,
    body.map((text) => `{"name":"${text.replaceAll('"', '')}","é":"ü"}`),
  ),
});

describe('served', () => {
  it('gives each record its own bytes, unchanged by the reads after it', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 120 }), (rows) => {
        // One buffer for every read, as lmdb's getBinaryFast gives, large enough for the largest.
        const shared = Buffer.alloc(Math.max(...rows.map((r) => encodeRow(r).length)));
        const read = rows.map((r) => {
          const value = encodeRow(r);
          value.copy(shared);
          shared.fill(0xff, value.length);
          return served(r.id, shared.subarray(0, value.length));
        });
        shared.fill(0);
        read.forEach((record, i) => {
          expect(record.id).toBe(rows[i]!.id);
          expect(record.etag).toBe(rows[i]!.etag);
          expect(record.body.toString('utf8')).toBe(rows[i]!.body);
        });
      }),
      { numRuns: 200 },
    );
  });
});
