// Command-line options of `npm run bench` and `npm run bench:scale`, with their defaults and --quick sizes.
import { parseArgs } from 'node:util';

interface CommonOptions {
  seed: number;
  sample: number;
  /** Reuse generated data sets from this directory (made on first use) instead of a temp dir. */
  dataCache?: string;
  /** Build src/ as committed at this git revision instead of the working tree. */
  rev?: string;
  /** Reuse the last successful build instead of building. */
  skipBuild: boolean;
  /** Where to append the results. */
  out?: string;
}

export interface LoadOptions {
  /** Before each load run, wait up to this many seconds for other processes to leave the cores alone. */
  waitQuiet: number;
  /** Server processes, for Enrich (ENRICH_WORKERS) and the ceiling alike. */
  workers: number;
  duration: number;
  warmup: number;
  connections: number;
  runs: number;
}

export interface BenchOptions extends LoadOptions, CommonOptions {
  people: number;
  companies: number;
  quick: boolean;
  skipMillion: boolean;
  jsonServerSizes: number[];
  /** Run the Enrich server under --cpu-prof, writing the profile here. */
  cpuProf?: string;
  /** Also import into and serve from scratch databases on this PostgreSQL server. */
  postgres?: string;
  /** Leave out the people searches. */
  skipSearch: boolean;
  /** Rows in the list `enrich match` is timed on; 0 leaves it out. */
  matchRows: number;
}

const common = {
  people: { type: 'string' },
  companies: { type: 'string' },
  seed: { type: 'string', default: '1' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  connections: { type: 'string', default: '50' },
  workers: { type: 'string', default: '1' },
  'wait-quiet': { type: 'string', default: '0' },
  runs: { type: 'string' },
  sample: { type: 'string', default: '2000' },
  'data-cache': { type: 'string' },
  rev: { type: 'string' },
  'skip-build': { type: 'boolean', default: false },
  out: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const benchOnly = {
  quick: { type: 'boolean', default: false },
  'skip-million': { type: 'boolean', default: false },
  'skip-search': { type: 'boolean', default: false },
  'match-rows': { type: 'string' },
  'skip-match': { type: 'boolean', default: false },
  'json-server-sizes': { type: 'string' },
  'cpu-prof': { type: 'string' },
  postgres: { type: 'string' },
} as const;

export const USAGE = `npm run bench -- [options]
  --people N             people in the data set (default 100000; --quick 2000)
  --companies N          companies (default 15000; --quick 300)
  --duration S           seconds per load run (default 10; --quick 2)
  --warmup S             unmeasured seconds before each load run (default 2; --quick 1)
  --runs R               runs of every measurement; medians are quoted (default 3; --quick 1)
  --connections C        concurrent connections (default 50)
  --workers N            server processes for Enrich (ENRICH_WORKERS) and the ceiling alike (default 1)
  --wait-quiet S         before each load run, wait up to S s for a quiet second on a shared machine (default 0)
  --sample N             people and companies to draw lookup keys from (default 2000)
  --seed S               data set and sampling seed (default 1)
  --json-server-sizes L  comma-separated people counts to try json-server at (default 10000,100000)
  --skip-million         skip the peak-RSS figure at 1,000,000 people (generation and import take minutes)
  --skip-search          skip the people searches (by companyId; seniority + department + country; position)
  --match-rows N         rows in the list \`enrich match\` is timed on, against the imported store
                         (default 1000000; --quick 20000); --skip-match leaves it out
  --data-cache DIR       keep generated data sets in DIR and reuse them
  --rev REV              benchmark src/ as committed at git revision REV (default: the working tree)
  --skip-build           reuse the benchmark's last successful build (say, while src/ is mid-edit)
  --cpu-prof DIR         run the Enrich server under --cpu-prof, profile written to DIR
  --postgres URL         also import into and serve from PostgreSQL: each run makes a scratch database on
                         the server URL names (needs CREATEDB) and drops it; no existing database is touched.
                         Its imports (people, the same people again, companies) are judged against
                         30,000 people/s
  --out FILE             append the results to FILE (default BENCHMARKS.md; --quick: print only)
  --quick                small sizes and short runs: a smoke check`;

function count(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new Error(`--${name}: expected a whole number ≥ ${min}`);
  return Number(value);
}

export function parseBenchOptions(argv: string[]): BenchOptions {
  const options = { ...common, ...benchOnly };
  const { values: v } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = v.quick;
  const people = count('people', v.people, quick ? 2000 : 100_000);
  if (v.postgres !== undefined && !/^postgres(ql)?:\/\//.test(v.postgres))
    throw new Error('--postgres: expected a postgres:// URL');
  const sizes = v['json-server-sizes']?.split(',').map((s) => count('json-server-sizes', s.trim(), 0));
  return {
    people,
    companies: count('companies', v.companies, quick ? 300 : 15_000),
    seed: count('seed', v.seed, 1, 0),
    duration: count('duration', v.duration, quick ? 2 : 10),
    warmup: count('warmup', v.warmup, quick ? 1 : 2, 0),
    connections: count('connections', v.connections, 50),
    workers: count('workers', v.workers, 1),
    waitQuiet: count('wait-quiet', v['wait-quiet'], 0, 0),
    runs: count('runs', v.runs, quick ? 1 : 3),
    sample: count('sample', v.sample, 2000),
    quick,
    skipMillion: v['skip-million'] || quick,
    jsonServerSizes: (sizes ?? (quick ? [1000] : [10_000, 100_000])).filter((n) => n <= people),
    dataCache: v['data-cache'],
    rev: v.rev,
    skipBuild: v['skip-build'],
    cpuProf: v['cpu-prof'],
    postgres: v.postgres,
    skipSearch: v['skip-search'],
    matchRows: v['skip-match'] ? 0 : count('match-rows', v['match-rows'], quick ? 20_000 : 1_000_000),
    out: v.out ?? (quick ? undefined : 'BENCHMARKS.md'),
  };
}

export interface ScaleOptions extends LoadOptions, CommonOptions {
  people: number;
  companies: number;
  baselinePeople: number;
}

export const SCALE_USAGE = `npm run bench:scale -- [options]
  --people N        people at full scale (default 10000000)
  --companies N     companies (default 1500000, or 15% of --people when that is given)
  --baseline N      people in the baseline data set the lookup rate is compared with (default 100000)
  --warmup S        unmeasured seconds before each load run (default 20: the sample's pages start cold)
  --duration S, --runs R, --connections C, --workers N, --wait-quiet S, --sample N, --seed S, --data-cache DIR, --rev REV, --skip-build, --out FILE
                    as for npm run bench`;

export function parseScaleOptions(argv: string[]): ScaleOptions {
  const { values: v } = parseArgs({
    args: argv,
    options: { ...common, baseline: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  if (v.help) {
    process.stdout.write(`${SCALE_USAGE}\n`);
    process.exit(0);
  }
  const people = count('people', v.people, 10_000_000);
  const companies = count('companies', v.companies, v.people ? Math.round(people * 0.15) : 1_500_000);
  return {
    people,
    companies,
    baselinePeople: count('baseline', v.baseline, 100_000),
    seed: count('seed', v.seed, 1, 0),
    duration: count('duration', v.duration, 10),
    // Just after an import of tens of gigabytes the sampled records' pages are on disk, not in the cache:
    // a first pass over a cold sample runs at the disk's random-read rate. 20 s warms 2,000 of them.
    warmup: count('warmup', v.warmup, 20, 0),
    connections: count('connections', v.connections, 50),
    workers: count('workers', v.workers, 1),
    waitQuiet: count('wait-quiet', v['wait-quiet'], 0, 0),
    runs: count('runs', v.runs, 3),
    sample: count('sample', v.sample, 2000),
    dataCache: v['data-cache'],
    rev: v.rev,
    skipBuild: v['skip-build'],
    out: v.out ?? 'BENCHMARKS.md',
  };
}
