// Command-line options of `npm run soak`, with their defaults.
import os from 'node:os';
import { parseArgs } from 'node:util';

export interface SoakOptions {
  minutes: number;
  people: number;
  companies: number;
  seed: number;
  /** Server processes (ENRICH_WORKERS): every core unless told otherwise. */
  workers: number;
  /** Percent of the measured maximum rate the soak offers. */
  share: number;
  /** Seconds of the flat-out run that measures the maximum rate. */
  maxSeconds: number;
  /** Connections of that run. */
  connections: number;
  sample: number;
  dataCache?: string;
  rev?: string;
  skipBuild: boolean;
  out?: string;
}

export const SOAK_USAGE = `npm run soak -- [options]
  --minutes N       minutes of load at the soak rate (default 10)
  --share P         percent of the measured maximum rate to offer (default 80)
  --people N        people in the data set (default 100000)
  --companies N     companies (default 10000)
  --workers N       server processes (default: every core, ${os.availableParallelism()} here)
  --max-seconds S   seconds of the flat-out run that measures the maximum rate (default 10)
  --connections C   connections of that run, and the fewest the soak uses (default 50)
  --sample N        people and companies the requests are drawn from (default 2000)
  --seed S          data set and sampling seed (default 1)
  --data-cache DIR  keep generated data sets in DIR and reuse them
  --rev REV         soak src/ as committed at git revision REV (default: the working tree)
  --skip-build      reuse the benchmarks' last successful build
  --out FILE        append the results to FILE (default BENCHMARKS.md for 10 minutes or more; shorter runs print only)`;

function count(name: string, value: string | undefined, fallback: number, min = 1, max = Infinity): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new Error(
      `--${name}: expected a whole number from ${min}${Number.isFinite(max) ? ` to ${max}` : ' up'}`,
    );
  return Number(value);
}

export function parseSoakOptions(argv: string[]): SoakOptions {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string' },
      share: { type: 'string' },
      people: { type: 'string' },
      companies: { type: 'string' },
      workers: { type: 'string' },
      'max-seconds': { type: 'string' },
      connections: { type: 'string' },
      sample: { type: 'string' },
      seed: { type: 'string' },
      'data-cache': { type: 'string' },
      rev: { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (v.help) {
    process.stdout.write(`${SOAK_USAGE}\n`);
    process.exit(0);
  }
  const minutes = count('minutes', v.minutes, 10);
  return {
    minutes,
    share: count('share', v.share, 80, 1, 100),
    people: count('people', v.people, 100_000),
    companies: count('companies', v.companies, 10_000),
    seed: count('seed', v.seed, 1, 0),
    workers: count('workers', v.workers, os.availableParallelism()),
    maxSeconds: count('max-seconds', v['max-seconds'], 10),
    connections: count('connections', v.connections, 50),
    sample: count('sample', v.sample, 2000),
    dataCache: v['data-cache'],
    rev: v.rev,
    skipBuild: v['skip-build'],
    out: v.out ?? (minutes >= 10 ? 'BENCHMARKS.md' : undefined),
  };
}
