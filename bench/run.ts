// npm run bench: build, generate, import, load-test against the ceiling and json-server, measure memory, report.
import { mkdirSync } from 'node:fs';
import { obtainDataset } from './data-files.js';
import { type LookupKind, type Sample, sampleLookups } from './dataset.js';
import { createBenchKey, type RunningEnrich, serve } from './enrich.js';
import { measureImports, measurePostgresImports } from './imports.js';
import { measureJsonServer } from './json-server.js';
import { say } from './log.js';
import {
  BULK_ID,
  BULK_ID_UNACCOUNTED,
  bulkTarget,
  ceilingAndLookups,
  enrichTargets,
  measureAtRate,
  measureRounds,
  POSTGRES_LOOKUPS,
  postgresTarget,
  startCeiling,
  type Target,
  UNACCOUNTED_ID,
} from './lookups.js';
import { measurePeakRss } from './memory.js';
import { type BenchOptions, parseBenchOptions, USAGE } from './options.js';
import type { ScratchDatabase } from './postgres.js';
import { renderReport } from './report.js';
import type { BenchResults } from './results.js';
import { runScript } from './session.js';
import { treePeakRssBytes } from './system.js';

const MILLION = 1_000_000;

/** Enrich over the scratch PostgreSQL database, and its lookups placed after SQLite's of the same kind. */
async function addPostgresTargets(
  o: BenchOptions,
  database: ScratchDatabase,
  sample: Sample,
  targets: Target[],
) {
  const env = { DATABASE_URL: database.url };
  const token = await createBenchKey('', env);
  const running = await serve('', { workers: o.workers, env });
  const server = { origin: running.origin, pid: running.child.pid, databasePid: database.postmasterPid };
  for (const target of enrichTargets(server, token, sample, POSTGRES_LOOKUPS)) {
    const sqlite = targets.findIndex((t) => t.name === target.name);
    targets.splice(sqlite + 1, 0, { ...target, name: postgresTarget(target.name as LookupKind) });
  }
  return running;
}

async function lookupsAndCeiling(
  o: BenchOptions,
  db: string,
  work: string,
  sample: Sample,
  postgres: ScratchDatabase | undefined,
) {
  const token = await createBenchKey(db);
  if (o.cpuProf) mkdirSync(o.cpuProf, { recursive: true });
  const enrich = await serve(db, { cpuProfDir: o.cpuProf, workers: o.workers });
  const ceiling = await startCeiling(sample, work, o.workers);
  const unaccounted = await serve(db, { workers: o.workers, env: { ENRICH_ACCOUNTING: 'false' } });
  let overPostgres: RunningEnrich | undefined;
  try {
    const server = { origin: enrich.origin, pid: enrich.child.pid };
    const targets = ceilingAndLookups(server, ceiling.server, token, sample);
    const idTarget = targets.find((t) => t.name === 'id')!;
    const bare = { origin: unaccounted.origin, pid: unaccounted.child.pid };
    targets.splice(targets.indexOf(idTarget) + 1, 0, { ...idTarget, name: UNACCOUNTED_ID, server: bare });
    // Bulks right after the single lookups they are compared with, in every round.
    targets.splice(
      targets.indexOf(idTarget) + 2,
      0,
      bulkTarget(BULK_ID, server, token, sample),
      bulkTarget(BULK_ID_UNACCOUNTED, bare, token, sample),
    );
    if (postgres) overPostgres = await addPostgresTargets(o, postgres, sample, targets);
    say(`lookups: ${targets.length} targets × ${o.runs} run(s) × ${o.warmup + o.duration} s`);
    const lookups = await measureRounds(targets, o);
    const atRate = await measureAtRate(idTarget, lookups.get('id')!, o);
    return { lookups, atRate, mainPeakRssBytes: treePeakRssBytes(enrich.child.pid) };
  } finally {
    await ceiling.child.stop();
    await unaccounted.child.stop();
    await overPostgres?.child.stop();
    await enrich.child.stop(30_000); // under --cpu-prof, the profile is written on the way out
  }
}

async function jsonServerSizes(o: BenchOptions, peopleFile: string, work: string, sample: Sample) {
  const results = [];
  for (const size of o.jsonServerSizes) {
    const ids = sample.personIds.filter((p) => p.line < size).map((p) => p.id);
    if (ids.length === 0) continue;
    say(`json-server: ${size.toLocaleString('en')} people`);
    const result = await measureJsonServer(peopleFile, size, ids, work, o);
    results.push(result);
    if (result.failure) break; // a larger size will not fare better
  }
  return results;
}

async function memoryFigures(o: BenchOptions, work: string) {
  const figures: BenchResults['memory'] = [await measurePeakRss(10_000, o.seed, work, o, o.dataCache)];
  if (o.skipMillion) figures.push({ people: MILLION, skipped: o.quick ? '--quick' : '--skip-million' });
  else figures.push(await measurePeakRss(MILLION, o.seed, work, o, o.dataCache));
  return figures;
}

runScript('bench', parseBenchOptions, USAGE, async (session) => {
  const { options: o, work } = session;
  const sizes = { people: o.people, companies: o.companies, seed: o.seed };
  const files = await obtainDataset(sizes, work, o.dataCache);
  const sample = await sampleLookups(files, o.sample, o.seed);
  say(`import: ${o.runs} run(s)`);
  const imports = await measureImports(files, sizes, work, o.runs);
  const pg = o.postgres ? await measurePostgresImports(files, sizes, o.postgres, o.runs) : undefined;
  const load = await lookupsAndCeiling(o, imports.db, work, sample, pg?.database).finally(() =>
    pg?.database.drop(),
  );
  const postgres = pg && {
    version: pg.database.version,
    local: pg.database.postmasterPid !== undefined,
    imports: pg.runs,
  };
  const jsonServer = await jsonServerSizes(o, files.people, work, sample);
  const memory = await memoryFigures(o, work);
  const bodyBytes = {
    person: Buffer.byteLength(sample.personBody),
    company: Buffer.byteLength(sample.companyBody),
  };
  return renderReport({
    ...session,
    imports: imports.runs,
    postgres,
    ...load,
    bodyBytes,
    jsonServer,
    memory,
  });
});
