// Import throughput on a synthetic file, outside the test suite:
//   node --import tsx test/ingest/measure-import.ts [people=50000] [gzip]
// Prints the wall-clock rate of importFile and, since the machine may be shared, each stage's
// capacity from the CPU time of its own thread: preparing (read, parse, validate, index, pack: the
// worker's job) and writing (unpack and SQLite: the main thread's job while the worker prepares).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBatches } from '../../src/ingest/batches.js';
import { DEFAULT_BATCH_SIZE, importFile } from '../../src/ingest/import.js';
import { type PackedBatch, packBatch, unpackBatch } from '../../src/ingest/packed-batch.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { writePeople } from './fixtures.js';

/** CPU seconds used by the calling thread (Linux). */
function threadCpuSeconds(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const count = Number(process.argv[2] ?? 50_000);
const gzip = process.argv[3] === 'gzip';
const dir = mkdtempSync(join(tmpdir(), 'enrich-measure-'));
try {
  const file = join(dir, gzip ? 'people.ndjson.gz' : 'people.ndjson');
  writePeople(file, count, { gzip });
  const mb = statSync(file).size / 1e6;

  const packed: PackedBatch[] = [];
  let cpu = threadCpuSeconds();
  for await (const batch of prepareBatches('people', file, DEFAULT_BATCH_SIZE)) packed.push(packBatch(batch));
  const prepareCpu = threadCpuSeconds() - cpu;

  const staged = openSqliteStore(join(dir, 'staged.db'));
  cpu = threadCpuSeconds();
  for (const batch of packed) await staged.upsert('people', unpackBatch(batch).records);
  const writeCpu = threadCpuSeconds() - cpu;
  await staged.close();
  packed.length = 0;

  const store = openSqliteStore(join(dir, 'enrich.db'));
  const summary = await importFile(store, 'people', file);
  await store.close();

  const rate = (seconds: number) => Math.round(summary.imported / seconds);
  console.log(
    `${summary.imported} people (${mb.toFixed(1)} MB${gzip ? ' gzip' : ''}) in ${summary.seconds.toFixed(2)} s: ` +
      `${rate(summary.seconds)} people/s wall; capacity by thread CPU: prepare ${rate(prepareCpu)}/s, ` +
      `write ${rate(writeCpu)}/s`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
