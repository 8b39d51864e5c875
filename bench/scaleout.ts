// npm run bench:scaleout: servers on PostgreSQL answering from their local index, against SQLite, in one run.
// One data set (`enrich generate`) imported into a SQLite file and into a scratch PostgreSQL database; one
// `enrich serve --workers 1` on each (the PostgreSQL one with a local index); every lookup kind by wrk,
// alternated, medians of --runs; PostgreSQL transactions per lookup from pg_stat_database; the time a new
// server takes to build its index, and its size; then three PostgreSQL servers and the time from a commit
// (through the store, as `enrich import` commits) to its being served by each of them.
// Usage: npm run bench:scaleout -- [--postgres URL] [--people N] [--duration S] [--runs N] [--writes N]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { prepareLine } from '../src/ingest/prepare.js';
import { openPostgresStore } from '../src/store/postgres/store.js';
import type { RecordToStore } from '../src/store/records.js';
import { build } from './build.js';
import { COMPANY_LOOKUPS, type LookupKind, PERSON_LOOKUPS, sampleLookups } from './dataset.js';
import {
  createBenchKey,
  generate,
  importFile,
  migrate,
  type RunningEnrich,
  serve,
  untilServing,
} from './enrich.js';
import { say } from './log.js';
import { enrichTargets, measureRounds, postgresTarget, type Server, type Target } from './lookups.js';
import { createScratchDatabase, transactionCount } from './postgres.js';
import { answeredWithWarmup, rps } from './results.js';
import { median, p99 } from './stats.js';
import { treePeakRssBytes } from './system.js';
import { WRK_MISSING, wrkAvailable } from './wrk.js';

const { values: v } = parseArgs({
  options: {
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    people: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    writes: { type: 'string', default: '100' },
    sample: { type: 'string', default: '20000' },
    'build-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (v.help) {
  process.stdout.write(
    'npm run bench:scaleout -- [--postgres URL] [--people N] [--duration S] [--warmup S] [--runs N]\n' +
      '  [--connections C] [--writes N] [--sample N] [--build-only]\n' +
      'Imports one generated set into SQLite and a scratch PostgreSQL database (on the server URL names,\n' +
      'default postgres://postgres@127.0.0.1:5432/test), compares every lookup kind on both by wrk, and\n' +
      "times a new server's index build and the freshness of writes across three servers.\n",
  );
  process.exit(0);
}
const people = Number(v.people);
const companies = Math.max(100, Math.round(people * 0.15));
const load = {
  waitQuiet: 0,
  workers: 1,
  duration: Number(v.duration),
  warmup: Number(v.warmup),
  connections: Number(v.connections),
  runs: Number(v.runs),
};
if (!wrkAvailable()) throw new Error(WRK_MISSING);

const work = mkdtempSync(path.join(tmpdir(), 'enrich-scaleout-'));
const running: RunningEnrich[] = [];
const database = await createScratchDatabase(v.postgres!);
const pgEnv = (n: number) => ({
  DATABASE_URL: database.url,
  ENRICH_LOCAL_DIR: path.join(work, `local-${n}`),
});

const duSync = (dir: string) => Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);

/** Generates the set and imports it into PostgreSQL; the data files and the SQLite file to use. */
async function prepare() {
  say(`built ${await build()}`);
  const files = { people: path.join(work, 'people.ndjson'), companies: path.join(work, 'companies.ndjson') };
  say(`generating ${people} people and ${companies} companies`);
  await generate(work, { people, companies, seed: 42 }, 30 * 60_000);
  const db = path.join(work, 'enrich.db');
  await migrate(database.url);
  const env = { DATABASE_URL: database.url };
  say('importing into PostgreSQL');
  await importFile('people', files.people, '', people, env);
  await importFile('companies', files.companies, '', companies, env);
  return { files, db, env };
}

/** --build-only: how long a new server's local index takes to build, and its size. */
async function buildOnly(): Promise<void> {
  const started = performance.now();
  const server = await serve('', { workers: 1, env: pgEnv(1) });
  running.push(server);
  const seconds = await untilServing(server.origin, started);
  const bytes = duSync(path.join(work, 'local-1'));
  process.stdout.write(
    `A new server's local index at ${people} people and ${companies} companies: in service ${seconds.toFixed(1)} s ` +
      `after start; ${(bytes / 1e6).toFixed(0)} MB on disk; server peak RSS ` +
      `${(treePeakRssBytes(server.child.pid) / 1e6).toFixed(0)} MB\n`,
  );
}

/** Every lookup kind against SQLite and PostgreSQL, transactions per lookup, and freshness across three servers. */
async function compare({ files, db, env }: Awaited<ReturnType<typeof prepare>>): Promise<void> {
  say('importing into SQLite');
  await importFile('people', files.people, db, people);
  await importFile('companies', files.companies, db, companies);
  const sqliteToken = await createBenchKey(db);
  const pgToken = await createBenchKey('', env);

  const sqlite = await serve(db, { workers: 1 });
  running.push(sqlite);
  const started = performance.now();
  const first = await serve('', { workers: 1, env: pgEnv(1) });
  running.push(first);
  const buildSeconds = await untilServing(first.origin, started);
  const localBytes = duSync(path.join(work, 'local-1'));
  say(`local index built in ${buildSeconds.toFixed(1)} s: ${(localBytes / 1e6).toFixed(0)} MB`);

  const sample = await sampleLookups(files, Number(v.sample), 7);
  const kinds: LookupKind[] = [...PERSON_LOOKUPS, ...COMPANY_LOOKUPS];
  const sqliteServer: Server = { origin: sqlite.origin, pid: sqlite.child.pid };
  const pgServer: Server = {
    origin: first.origin,
    pid: first.child.pid,
    databasePid: database.postmasterPid,
  };
  const targets: Target[] = [];
  for (const kind of kinds) {
    targets.push(...enrichTargets(sqliteServer, sqliteToken, sample, [kind]));
    const [target] = enrichTargets(pgServer, pgToken, sample, [kind]);
    targets.push({ ...target!, name: postgresTarget(kind) });
  }
  const xactsBefore = await transactionCount(database.url);
  const measured = await measureRounds(targets, load);
  const xacts = (await transactionCount(database.url)) - xactsBefore;
  const rows: string[][] = [];
  let pgRequests = 0;
  for (const kind of kinds) {
    const sqliteRps = rps(measured.get(kind));
    const pgRuns = measured.get(postgresTarget(kind))!;
    const pgRps = rps(pgRuns);
    pgRequests += answeredWithWarmup(pgRuns, load.duration + load.warmup);
    const ratio = pgRps / sqliteRps;
    rows.push([
      kind,
      `${Math.round(sqliteRps)}`,
      `${Math.round(pgRps)}`,
      ratio.toFixed(2),
      ratio >= 0.9 ? 'met' : 'not met',
    ]);
  }

  say('freshness: three servers on the one database, each with its own local index');
  for (const n of [2, 3]) {
    const at = performance.now();
    const server = await serve('', { workers: 1, env: pgEnv(n) });
    running.push(server);
    await untilServing(server.origin, at);
  }
  const origins = running.slice(1).map((r) => r.origin);
  const writer = await openPostgresStore({ url: database.url, poolSize: 2 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < Number(v.writes); i++) {
      const email = `fresh-${i}@scaleout.example`;
      const id = `fpscaleout${String(i).padStart(4, '0')}`;
      const record = prepareLine(
        'people',
        JSON.stringify({ id, name: `Fresh ${i}`, emails: { work: [{ value: email }] } }),
      ) as RecordToStore;
      await writer.upsert('people', [record]);
      const committed = performance.now();
      await Promise.all(
        origins.map(async (origin) => {
          for (;;) {
            const response = await fetch(`${origin}/v1/people?work_email=${encodeURIComponent(email)}`, {
              headers: { authorization: `Bearer ${pgToken}` },
            });
            await response.arrayBuffer();
            if (response.status === 200) return void latencies.push(performance.now() - committed);
            if (performance.now() - committed > 10_000) throw new Error(`${email} not served in 10 s`);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await writer.close();
  }
  const fresh = { p50: median(latencies), p99: p99(latencies), max: Math.max(...latencies) };
  const databaseBytes = await (async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows: size } = await client.query<{ n: string }>(
      'SELECT pg_database_size(current_database())::text AS n',
    );
    await client.end();
    return Number(size[0]!.n);
  })();
  const perLookup = xacts / Math.max(1, pgRequests);
  const out = [
    `# Scale-out: ${people} people, ${companies} companies; wrk -c${load.connections}, ${load.duration} s (+${load.warmup} s warm-up), medians of ${load.runs}`,
    '',
    '| lookup | SQLite req/s | PostgreSQL + local index req/s | ratio | ≥ 0.9× |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `PostgreSQL transactions per lookup: ${perLookup.toFixed(4)} (${xacts} transactions over ~${Math.round(pgRequests)} lookups; target ≤ 0.01: ${perLookup <= 0.01 ? 'met' : 'not met'})`,
    `Freshness, commit → served by each of 3 servers, ${latencies.length} observations: p50 ${fresh.p50.toFixed(1)} ms, p99 ${fresh.p99.toFixed(1)} ms, max ${fresh.max.toFixed(1)} ms (target p99 ≤ 1,000 ms: ${fresh.p99 <= 1000 ? 'met' : 'not met'})`,
    `A new server's local index: built and in service ${buildSeconds.toFixed(1)} s after start; ${(localBytes / 1e6).toFixed(0)} MB on disk (${(((localBytes / people) * 1e6) / 1e9).toFixed(2)} GB per million people); PostgreSQL database ${(databaseBytes / 1e6).toFixed(0)} MB; server peak RSS ${(treePeakRssBytes(first.child.pid) / 1e6).toFixed(0)} MB`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

try {
  const prepared = await prepare();
  if (v['build-only']) await buildOnly();
  else await compare(prepared);
} finally {
  for (const server of running) await server.child.stop();
  await database.drop();
  rmSync(work, { recursive: true, force: true });
}
