// Preparing in a worker gives the batches preparing here gives, wherever this thread hands over.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PreparedBatch, prepareBatches } from '../../src/ingest/batches.js';
import { knownBodies } from '../../src/ingest/known-bodies.js';
import { etagOf } from '../../src/ingest/prepare.js';
import { prepareBatchesInWorker } from '../../src/ingest/worker-batches.js';
import { personLine } from './fixtures.js';

/** What a writer sees of a batch: record ids, rejected lines and the running counts. */
const summarise = ({ records, rejections, lines, read }: PreparedBatch) => ({
  ids: records.map((r) => r.id),
  identifiers: records.map((r) => r.identifiers.length),
  rejected: rejections.map((r) => r.line),
  lines,
  read,
});

async function collect(batches: AsyncIterable<PreparedBatch>) {
  const out: ReturnType<typeof summarise>[] = [];
  for await (const batch of batches) out.push(summarise(batch));
  return out;
}

/** A store holding `bodies`, as knownBodies reads one. */
const storeOf = (bodies: string[]) => ({
  async *exportEtags() {
    yield bodies.map(etagOf);
  },
});

describe('prepareBatchesInWorker', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-worker-'));
    file = join(dir, 'people.ndjson');
    const lines = Array.from({ length: 9 }, (_, n) => personLine(n));
    lines.splice(3, 0, '', '{"id": 7}');
    lines.splice(8, 0, 'not json');
    writeFileSync(file, `${lines.join('\n')}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([0, 1, 2, Number.POSITIVE_INFINITY])(
    'matches preparing in this thread when handing over after %s batches',
    async (inlineBatches) => {
      const expected = await collect(prepareBatches('people', file, 2));
      expect(expected.at(-1)).toMatchObject({ lines: 12, read: 11 });
      expect(await collect(prepareBatchesInWorker('people', file, 2, { inlineBatches }))).toEqual(expected);
    },
  );

  it.each([1, 2, 3])(
    'matches preparing in this thread when %s workers share the batches',
    async (workers) => {
      const expected = await collect(prepareBatches('people', file, 2));
      expect(await collect(prepareBatchesInWorker('people', file, 2, { inlineBatches: 0, workers }))).toEqual(
        expected,
      );
      expect(await collect(prepareBatchesInWorker('people', file, 3, { inlineBatches: 1, workers }))).toEqual(
        await collect(prepareBatches('people', file, 3)),
      );
    },
  );

  it.each([1, 2])(
    "counts a refresh's stored lines unchanged in %s worker(s), as this thread does",
    async (workers) => {
      // The stored bodies: every other person of the file (etagOf trims a line as the reader does).
      const stored = Array.from({ length: 9 }, (_, n) => personLine(n)).filter((_, n) => n % 2 === 0);
      const known = { ...(await knownBodies(storeOf(stored), 'people'))!, except: [] };
      const withUnchanged = async (batches: AsyncIterable<PreparedBatch>) => {
        const out: Array<{ ids: string[]; unchanged: number }> = [];
        for await (const batch of batches)
          out.push({ ids: batch.records.map((r) => r.id), unchanged: batch.unchanged });
        return out;
      };
      const expected = await withUnchanged(prepareBatches('people', file, 2, undefined, known));
      expect(expected.reduce((n, b) => n + b.unchanged, 0)).toBe(5);
      expect(
        await withUnchanged(prepareBatchesInWorker('people', file, 2, { inlineBatches: 0, workers, known })),
      ).toEqual(expected);
    },
  );

  it('reports a failure in the worker', async () => {
    await expect(
      collect(prepareBatchesInWorker('people', join(dir, 'missing'), 2, { inlineBatches: 0 })),
    ).rejects.toThrow(/ENOENT/);
  });
});
