// npm run bench: build, generate, import, load-test lookups against the ceiling, then the people searches, then
// `enrich match` of a list, json-server, measure memory, report.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sqliteAuditStorage } from './audit-storage.js';
import { type DataFiles, obtainDataset } from './data-files.js';
import { type LookupKind, type Sample, sampleLookups } from './dataset.js';
import { type DuringFiles, type DuringRun, evolveManyChanges, measureDuring } from './during.js';
import { createBenchKey, evolve, type RunningEnrich, serve, serveFromLocalIndex } from './enrich.js';
import { createFeedKey, type FeedRun, measureFeed } from './feed.js';
import { measureImports, measurePostgresImports } from './imports.js';
import { measureJsonServer } from './json-server.js';
import { say } from './log.js';
import {
  BULK_ID,
  BULK_ID_UNACCOUNTED,
  bulkTarget,
  ceilingAndLookups,
  enrichTargets,
  ISSUE_24_METHOD,
  measureAtRate,
  measureIssue24Method,
  measureRounds,
  POSTGRES_LOOKUPS,
  postgresTarget,
  type Server,
  startCeiling,
  type Target,
  UNACCOUNTED_ID,
} from './lookups.js';
import { measureMatches } from './match-run.js';
import { measurePeakRss } from './memory.js';
import { type BenchOptions, parseBenchOptions, USAGE } from './options.js';
import { type ScratchDatabase, transactionCount } from './postgres.js';
import { renderReport } from './report.js';
import type { BenchResults } from './results.js';
import { measureSearches, type SearchRow, sampleSearches, searchTargets } from './searches.js';
import { runScript } from './session.js';
import { measureStreams } from './stream.js';
import { treePeakRssBytes } from './system.js';

const MILLION = 1_000_000;

/**
 * Enrich over the scratch PostgreSQL database, its local index in `work` and in service before it is
 * measured, and its lookups placed after SQLite's of the same kind.
 */
async function addPostgresTargets(
  o: BenchOptions,
  database: ScratchDatabase,
  work: string,
  sample: Sample,
  targets: Target[],
) {
  const env = { DATABASE_URL: database.url, ENRICH_LOCAL_DIR: path.join(work, 'postgres-local') };
  const token = await createBenchKey('', env);
  const running = await serveFromLocalIndex({ workers: o.workers, env });
  const server = { origin: running.origin, pid: running.child.pid, databasePid: database.postmasterPid };
  for (const target of enrichTargets(server, token, sample, POSTGRES_LOOKUPS)) {
    const sqlite = targets.findIndex((t) => t.name === target.name);
    targets.splice(sqlite + 1, 0, { ...target, name: postgresTarget(target.name as LookupKind) });
  }
  return { running, token };
}

/** The people searches against the SQLite server and, with --postgres, the PostgreSQL one. */
async function searches(
  o: BenchOptions,
  peopleFile: string,
  servers: Array<{ server: Server; token: string; backend: SearchRow['backend'] }>,
): Promise<SearchRow[]> {
  if (o.skipSearch) return [];
  const paths = await sampleSearches(peopleFile, o.sample, o.seed);
  const targets = servers.flatMap(({ server, token, backend }) =>
    searchTargets(server, token, paths, backend),
  );
  say(
    `searches: ${targets.length} targets × ${o.runs} run(s), then each at 80% of its maximum as many times`,
  );
  return measureSearches(targets, o);
}

async function lookupsAndCeiling(
  o: BenchOptions,
  db: string,
  work: string,
  sample: Sample,
  postgres: ScratchDatabase | undefined,
  files: DataFiles,
  during: DuringFiles,
) {
  const token = await createBenchKey(db);
  if (o.cpuProf) mkdirSync(o.cpuProf, { recursive: true });
  // Webhooks to a receiver on this machine, for the deliveries row.
  const enrich = await serve(db, {
    cpuProfDir: o.cpuProf,
    workers: o.workers,
    env: { ENRICH_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const ceiling = await startCeiling(sample, work, o.workers);
  const unaccounted = await serve(db, { workers: o.workers, env: { ENRICH_ACCOUNTING: 'false' } });
  let overPostgres: { running: RunningEnrich; token: string } | undefined;
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
    if (postgres) overPostgres = await addPostgresTargets(o, postgres, work, sample, targets);
    say(`lookups: ${targets.length} targets × ${o.runs} run(s) × ${o.warmup + o.duration} s`);
    const transactionsBefore = postgres ? await transactionCount(postgres.url) : 0;
    const lookups = await measureRounds(targets, o);
    // Every transaction of the scratch database over the rounds: only the PostgreSQL server's lookups touch it.
    const postgresTransactions = postgres ? (await transactionCount(postgres.url)) - transactionsBefore : 0;
    const atRate = await measureAtRate(idTarget, lookups.get('id')!, o);
    const wide = await sampleLookups(files, Math.min(ISSUE_24_METHOD.people, o.people), o.seed);
    const method = await measureIssue24Method(server, ceiling.server, token, wide, o);
    // Done with: nothing after this may share the cores with them, and the unaccounted server, on the same
    // store, would run a second webhook dispatcher during the delivery rows (one not allowed to reach this
    // machine's receiver, whose claims failed and waited for their retry).
    await ceiling.child.stop();
    await unaccounted.child.stop();
    const mainPeakRssBytes = treePeakRssBytes(enrich.child.pid);
    const searchServers: Array<{ server: Server; token: string; backend: SearchRow['backend'] }> = [
      { server, token, backend: 'SQLite' },
    ];
    if (overPostgres && postgres) {
      const pgServer = {
        origin: overPostgres.running.origin,
        pid: overPostgres.running.child.pid,
        databasePid: postgres.postmasterPid,
      };
      searchServers.push({ server: pgServer, token: overPostgres.token, backend: 'PostgreSQL' });
    }
    const searchRows = await searches(o, files.people, searchServers);
    await overPostgres?.running.child.stop();
    const feed: FeedRun[] = [];
    const feedToken = await createFeedKey(db);
    say(`feed: ${o.runs} run(s) of one reader through the change log`);
    for (let run = 0; run < o.runs; run++) feed.push(await measureFeed(enrich.origin, feedToken));
    say(
      `during: ${o.runs} run(s) of id lookups alone, during a refresh, during job changes' webhook deliveries`,
    );
    const duringRuns: DuringRun[] = await measureDuring(idTarget, db, during, o);
    // Last: each stream's million audited lookups are folded by the server's thread after it ends.
    const ids = wide.personIds.map((person) => person.id);
    say(`stream: ${o.runs} run(s) of one NDJSON bulk of lookups by id`);
    const streams = await measureStreams(server, token, ids, o);
    return {
      lookups,
      atRate,
      method,
      streams,
      mainPeakRssBytes,
      searches: searchRows,
      feed,
      during: duringRuns,
      postgresTransactions,
    };
  } finally {
    await ceiling.child.stop();
    await unaccounted.child.stop();
    await overPostgres?.running.child.stop();
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
  // The next month of the set (about 2% of people changed), for the snapshot refresh rows.
  const evolvedDir = path.join(work, 'evolved');
  say('data set: evolving a month for the snapshot refresh');
  await evolve(path.dirname(files.people), evolvedDir, sizes.people);
  const evolved = { people: path.join(evolvedDir, path.basename(files.people)), companies: '' };
  const many = await evolveManyChanges(files.people, path.join(work, 'evolved-many'), sizes.people);
  say(`import: ${o.runs} run(s)`);
  const imports = await measureImports(files, sizes, work, o.runs, evolved);
  const pg = o.postgres ? await measurePostgresImports(files, sizes, o.postgres, o.runs) : undefined;
  const { postgresTransactions, ...load } = await lookupsAndCeiling(
    o,
    imports.db,
    work,
    sample,
    pg?.database,
    files,
    {
      original: files.people,
      evolved: evolved.people,
      manyChanges: many.file,
      jobChanges: many.jobChanges,
      people: o.people,
    },
  ).finally(() => pg?.database.drop());
  // Every lookup run audited into the main store, folded as its server stopped.
  const audit = sqliteAuditStorage(imports.db);
  // After the lookups, with their servers stopped: the list has the cores to itself.
  const match = o.matchRows > 0 ? await measureMatches(files.people, imports.db, o.matchRows, work) : [];
  const postgres = pg && {
    version: pg.database.version,
    local: pg.database.postmasterPid !== undefined,
    imports: pg.runs,
    lookupTransactions: postgresTransactions,
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
    audit,
    match,
    bodyBytes,
    jsonServer,
    memory,
  });
});
