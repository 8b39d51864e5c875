// Batches cross from the preparing thread to the writing one flattened, and arrive unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PreparedBatch } from '../../src/ingest/batches.js';
import { packBatch, transferList, unpackBatch } from '../../src/ingest/packed-batch.js';
import type { IdentifierKind } from '../../src/vocabulary/entities.js';

const kind = fc.constantFrom<IdentifierKind>('linkedin', 'work_email', 'personal_email', 'domain', 'abn');
const record = fc.record({
  id: fc.string(),
  body: fc.string({ unit: 'grapheme' }),
  etag: fc.string(),
  identifiers: fc.array(fc.record({ kind, value: fc.string({ unit: 'grapheme' }) }), { maxLength: 5 }),
});

/** A batch of these records, with counts the tests do not look at. */
const batchOf = (records: PreparedBatch['records']): PreparedBatch => ({
  records,
  rejections: [],
  unchanged: 0,
  lines: records.length,
  read: records.length,
  bytesRead: 0,
  totalBytes: 0,
});

describe('packed batches', () => {
  it('unpack to the records, rejections and counts that were packed', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 20 }),
        fc.integer({ min: 1, max: 100 }),
        (records, chunkLimit) => {
          const batch: PreparedBatch = {
            records,
            rejections: [{ line: 3, path: '$.id', message: 'id is required' }],
            unchanged: 2,
            lines: 7,
            read: 6,
            bytesRead: 100,
            totalBytes: 200,
          };
          const packed = packBatch(batch);
          expect(unpackBatch(structuredClone(packed, { transfer: transferList(packed) }))).toEqual(batch);
          // Small limits split a batch over several chunks.
          expect(unpackBatch(structuredClone(packBatch(batch, chunkLimit)))).toEqual(batch);
        },
      ),
    );
  });

  it('carry text beyond Latin-1 as UTF-8, the buffers moved rather than copied', () => {
    const batch = batchOf([
      {
        id: 'fp1',
        body: '{"name":"Zoë Ngô 🙂"}',
        etag: '"e"',
        identifiers: [{ kind: 'domain', value: 'bücher.de' }],
      },
      { id: 'fp2', body: '{"name":"Ann"}', etag: '"f"', identifiers: [] },
    ]);
    const packed = packBatch(batch);
    expect(packed.chunks[0]!.byteLength).toBe(
      ['{"name":"Zoë Ngô 🙂"}', 'fp1', '"e"', '', 'bücher.de', '{"name":"Ann"}', 'fp2', '"f"', ''].reduce(
        (sum, piece) => sum + Buffer.byteLength(piece),
        0,
      ),
    );
    const moved = structuredClone(packed, { transfer: transferList(packed) });
    expect(packed.chunks[0]!.byteLength).toBe(0); // detached: transferred, not copied
    expect(unpackBatch(moved)).toEqual(batch);
  });

  it('carry a record with more identifiers than a byte counts', () => {
    const identifiers = Array.from({ length: 600 }, (_, i) => ({
      kind: (i % 2 ? 'work_email_sha256' : 'work_email') as IdentifierKind,
      value: `a${i}@acme.com.au`,
    }));
    const batch = batchOf([
      { id: 'many', body: '{}', etag: '"e"', identifiers },
      { id: 'next', body: '{}', etag: '"f"', identifiers: [{ kind: 'linkedin', value: 'jane' }] },
    ]);
    expect(unpackBatch(structuredClone(packBatch(batch)))).toEqual(batch);
  });

  it('refuses an identifier kind it cannot carry', () => {
    const records = [
      { id: 'a', body: '{}', etag: '"e"', identifiers: [{ kind: 'phone' as IdentifierKind, value: '1' }] },
    ];
    expect(() =>
      packBatch({ records, rejections: [], unchanged: 0, lines: 1, read: 1, bytesRead: 0, totalBytes: 0 }),
    ).toThrow(/kind/);
  });
});
