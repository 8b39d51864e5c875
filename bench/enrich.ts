// The service under test, driven through its own CLI (as built by build.ts): generate, import, issue a key, serve.
import path from 'node:path';
import { BUILD_DIR, ROOT } from './build.js';
import { type Child, runToEnd, spawnChild, waitForLine } from './children.js';
import { say } from './log.js';

const CLI = path.join(BUILD_DIR, 'cli', 'main.js');
const MINUTE = 60_000;

/** The embedded store unless a call says otherwise, whatever the shell running the benchmark has set. */
const STORE_ENV: NodeJS.ProcessEnv = {
  DATABASE_URL: '',
  DATABASE_READ_URL: '',
  REDIS_URL: '',
  ENRICH_URL: '',
  ENRICH_TOKEN: '',
};

/** `--db DB` for a SQLite file; nothing when `db` is '' because DATABASE_URL names the store. */
const dbArgs = (db: string) => (db ? ['--db', db] : []);

const enrich = (name: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}) =>
  runToEnd(name, process.execPath, [CLI, ...args], { timeoutMs, env: { ...STORE_ENV, ...env }, cwd: ROOT });

export interface Sizes {
  people: number;
  companies: number;
  seed: number;
}

/** `enrich generate` into `dir`: DIR/people.ndjson and DIR/companies.ndjson. */
export async function generate(dir: string, sizes: Sizes, timeoutMs: number, gzip = false): Promise<void> {
  const { people, companies, seed } = sizes;
  const args = ['generate', '--people', `${people}`, '--companies', `${companies}`, '--seed', `${seed}`];
  await enrich('enrich generate', [...args, '--out', dir, ...(gzip ? ['--gzip'] : [])], timeoutMs);
}

export interface ImportSummary {
  records: number;
  /** As the command reports it: the import itself, without process start-up. */
  seconds: number;
  /** Records per second as the command reports it (from its unrounded time). */
  perSecond: number;
  /** Wall-clock time of the whole command, from process start to exit. */
  wallSeconds: number;
  /** Records per second of wall-clock time: what a user waiting for the command gets, and what verdicts judge. */
  wallPerSecond: number;
  /** The command's peak RSS (VmHWM): its heaps, SQLite's caches and the index pages it mapped. */
  peakRssBytes: number;
}

/** Time-box for an import of `records`: ten times the slowest rate seen here (3,000 a second), plus start-up. */
const importTimeoutMs = (records: number) => 2 * MINUTE + 3 * records;

/** `enrich import ENTITY FILE --db DB` (into DATABASE_URL instead when `env` sets it), read back from its summary line. */
export async function importFile(
  entity: 'people' | 'companies',
  file: string,
  db: string,
  expectedRecords: number,
  env: NodeJS.ProcessEnv = {},
): Promise<ImportSummary> {
  const timeoutMs = importTimeoutMs(expectedRecords);
  const started = performance.now();
  const args = ['import', entity, file, ...dbArgs(db)];
  const { stdout, peakRssBytes } = await enrich(`enrich import ${entity}`, args, timeoutMs, env);
  const wallSeconds = (performance.now() - started) / 1000;
  const match = stdout.match(
    /: (\d+) \w+ imported(?: \([^)]*\))?, (\d+) rejected of \d+ lines in ([\d.]+) s \((\d+)\/s\)/,
  );
  if (!match) throw new Error(`enrich import ${entity}: unexpected output: ${stdout.trim()}`);
  if (match[2] !== '0') throw new Error(`enrich import ${entity}: ${match[2]} lines rejected`);
  const records = Number(match[1]);
  if (records !== expectedRecords)
    throw new Error(`enrich import ${entity}: ${records} of ${expectedRecords}`);
  return {
    records,
    seconds: Number(match[3]),
    perSecond: Number(match[4]),
    wallSeconds,
    wallPerSecond: records / wallSeconds,
    peakRssBytes,
  };
}

/** `enrich evolve --in DIR --out OUT`: the next month of a generated set (about 2% of its people changed). */
export async function evolve(dir: string, out: string, records: number, months = 1): Promise<void> {
  const args = ['evolve', '--in', dir, '--out', out, '--months', `${months}`];
  await enrich('enrich evolve', args, importTimeoutMs(records));
}

/**
 * `enrich import ENTITY FILE --snapshot --force --json --db DB`: a refresh of the entity to the file, read
 * back from its JSON (`records` are the lines read; `changed` those inserted, updated or removed).
 */
export async function refreshSnapshot(
  entity: 'people' | 'companies',
  file: string,
  db: string,
  expectedRecords: number,
  env: NodeJS.ProcessEnv = {},
): Promise<ImportSummary & { changed: number }> {
  const started = performance.now();
  const args = ['import', entity, file, '--snapshot', '--force', '--json', ...dbArgs(db)];
  const { stdout, peakRssBytes } = await enrich(
    `enrich import ${entity} --snapshot`,
    args,
    importTimeoutMs(expectedRecords),
    env,
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
  if (summary.rejected !== 0)
    throw new Error(`enrich import ${entity} --snapshot: unexpected output: ${stdout}`);
  const records = summary.read ?? 0;
  return {
    records,
    seconds: summary.seconds ?? 0,
    perSecond: Math.round(records / Math.max(summary.seconds ?? 0, 0.001)),
    wallSeconds,
    wallPerSecond: records / wallSeconds,
    peakRssBytes,
    changed: (summary.inserted ?? 0) + (summary.updated ?? 0) + (summary.removed ?? 0),
  };
}

/** `enrich migrate` on the PostgreSQL database `databaseUrl`. */
export async function migrate(databaseUrl: string): Promise<void> {
  await enrich('enrich migrate', ['migrate'], MINUTE, { DATABASE_URL: databaseUrl });
}

/** `enrich keys create --name NAME --rate RATE [--scopes …]`: the new key's bearer token. */
export async function createKey(
  db: string,
  name: string,
  rate: number,
  env: NodeJS.ProcessEnv = {},
  scopes?: string[],
): Promise<string> {
  const scoped = scopes ? ['--scopes', scopes.join(',')] : [];
  const args = ['keys', 'create', '--name', name, '--rate', `${rate}`, ...scoped, ...dbArgs(db)];
  const { stdout } = await enrich('enrich keys create', args, MINUTE, env);
  const token = stdout.trim().split('\n').at(-1);
  if (!token) throw new Error('enrich keys create printed no token');
  return token;
}

/** A key for the benchmark: a rate far above anything the load reaches, so it never limits. */
export const createBenchKey = (db: string, env: NodeJS.ProcessEnv = {}) =>
  createKey(db, 'benchmark', 1_000_000, env);

/** `enrich keys list` on a SQLite store: a command that opens it (and builds its serving index first when it must). */
export async function listKeys(db: string): Promise<void> {
  await enrich('enrich keys list', ['keys', 'list', ...dbArgs(db)], 30 * MINUTE);
}

export interface LoadedStore {
  people: ImportSummary;
  companies: ImportSummary;
  /** A benchmark key's bearer token. */
  token: string;
}

/** Imports a data set into a new store at `db` (people, then companies) and issues a benchmark key. */
export async function loadStore(
  files: { people: string; companies: string },
  sizes: Sizes,
  db: string,
): Promise<LoadedStore> {
  const people = await importFile('people', files.people, db, sizes.people);
  const companies = await importFile('companies', files.companies, db, sizes.companies);
  return { people, companies, token: await createBenchKey(db) };
}

export interface RunningEnrich {
  child: Child;
  origin: string;
}

/**
 * `enrich serve` on a free loopback port with `workers` processes (ENRICH_WORKERS; default 1);
 * `cpuProfDir` runs it under --cpu-prof, each process writing its profile there on shutdown.
 */
export async function serve(
  db: string,
  opts: { cpuProfDir?: string; workers?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningEnrich> {
  const profile = opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [];
  const args = [...profile, CLI, 'serve', '--host', '127.0.0.1', '--port', '0', ...dbArgs(db)];
  const child = spawnChild('enrich serve', process.execPath, args, {
    cwd: ROOT,
    env: {
      ...STORE_ENV,
      LOG_LEVEL: 'warn',
      ENRICH_ACCESS_LOG: 'false',
      ENRICH_WORKERS: `${opts.workers ?? 1}`,
      ...opts.env,
    },
  });
  child.proc.stdout!.resume(); // warnings only; never let the pipe fill
  const match = await waitForLine(child, child.proc.stderr!, /listening on (http:\/\/\S+)/, 2 * MINUTE);
  return { child, origin: match[1]! };
}

/** `enrich match ENTITY INPUT --db DB …args`, started and not awaited: the caller watches it as it runs. */
export function startMatch(entity: 'people' | 'companies', input: string, db: string, args: string[]): Child {
  const command = [CLI, 'match', entity, input, ...dbArgs(db), ...args];
  return spawnChild(`enrich match ${entity}`, process.execPath, command, { cwd: ROOT, env: STORE_ENV });
}

/** A gauge or counter of the server's `/metrics`, undefined when it has none. */
async function metric(origin: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/** Seconds from `started` until the server's local index is in service. */
export async function untilServing(origin: string, started: number): Promise<number> {
  for (;;) {
    if ((await metric(origin, 'enrich_local_index_serving')) === 1)
      return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `serve` over PostgreSQL (`env` names the database and ENRICH_LOCAL_DIR), resolved once the server's local
 * index is in service, as a deployment serves: a server measured while it builds is measured building.
 */
export async function serveFromLocalIndex(opts: { workers?: number; env: NodeJS.ProcessEnv }) {
  const started = performance.now();
  const running = await serve('', opts);
  try {
    const seconds = await untilServing(running.origin, started);
    say(`the PostgreSQL server's local index in service ${seconds.toFixed(1)} s after start`);
    return running;
  } catch (error) {
    await running.child.stop();
    throw error;
  }
}
