// The webhook row of `npm run bench` alone (id lookups alone, during a refresh, during job changes' deliveries), for A/B
// runs of the dispatcher: the data set (100,000 people) kept in DATA_DIR, the store in WORK_DIR (imported once;
// each run leaves it as it found it). CPU_PROF=DIR runs the server under --cpu-prof (a file a thread).
// Usage: node --import tsx bench/webhook-row.ts DATA_DIR WORK_DIR [RUNS] [--skip-build]
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from './build.js';
import { obtainDataset } from './data-files.js';
import { sampleLookups } from './dataset.js';
import { duringTable, evolveManyChanges, measureDuring } from './during.js';
import { createBenchKey, evolve, importFile, serve } from './enrich.js';
import { runLoad } from './loadgen.js';
import { enrichTargets } from './lookups.js';

const [dataDir, workDir, runsArg = '1', skip] = process.argv.slice(2);
if (skip !== '--skip-build') process.stderr.write(`${await build()}\n`);
const sizes = { people: 100_000, companies: 15_000, seed: 1 };
const files = await obtainDataset(sizes, dataDir!, dataDir);
const evolvedDir = path.join(dataDir!, 'evolved');
const evolved = path.join(evolvedDir, path.basename(files.people));
if (!existsSync(evolved)) await evolve(path.dirname(files.people), evolvedDir, sizes.people);
mkdirSync(workDir!, { recursive: true });
const db = path.join(workDir!, 'enrich.db');
if (!existsSync(db)) {
  await importFile('people', files.people, db, sizes.people);
  await importFile('companies', files.companies, db, sizes.companies);
}
const sample = await sampleLookups(files, 2000, 1);
const token = await createBenchKey(db);
const enrich = await serve(db, {
  env: { ENRICH_WEBHOOK_ALLOW_PRIVATE: 'true' },
  ...(process.env.CPU_PROF ? { cpuProfDir: process.env.CPU_PROF } : {}),
});
try {
  const server = { origin: enrich.origin, pid: enrich.child.pid };
  const [id] = enrichTargets(server, token, sample, ['id']);
  const o = { runs: Number(runsArg), duration: 10, warmup: 2, connections: 50, workers: 1, waitQuiet: 0 };
  await runLoad(
    {
      origin: server.origin,
      paths: id!.paths,
      headers: id!.headers,
      connections: 50,
      duration: 3,
      warmup: 0,
    },
    [server.pid],
  );
  const many = await evolveManyChanges(files.people, path.join(dataDir!, 'evolved-many'), sizes.people);
  const runs = await measureDuring(
    id!,
    db,
    {
      original: files.people,
      evolved,
      manyChanges: many.file,
      jobChanges: many.jobChanges,
      people: sizes.people,
    },
    o,
  );
  process.stdout.write(`${JSON.stringify(runs)}\n${duringTable(runs)}\n`);
} finally {
  await enrich.child.stop(30_000);
}
