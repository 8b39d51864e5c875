// npm run bench:match: `enrich match` of a long CSV list against a store of generated people — rows per
// second and whether the process's own memory stays flat — appended to BENCHMARKS.md like `npm run bench`.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { obtainDataset } from './data-files.js';
import { importFile, type Sizes } from './enrich.js';
import { entryHeading, int } from './format.js';
import { say } from './log.js';
import { LIST_MIX } from './match-list.js';
import { MATCH_MEMORY_NOTE, type MatchRun, matchTable, measureMatches } from './match-run.js';
import { runScript, type Session } from './session.js';

const USAGE = `npm run bench:match -- [options]
  --rows N          rows in the list (default 1000000; --quick 100000)
  --people N        people in the store (default 1000000; --quick 20000); companies a tenth as many
  --seed S          data set seed (default 1)
  --data-cache DIR  keep the generated data set in DIR and reuse it
  --rev REV         benchmark src/ as committed at git revision REV (default: the working tree)
  --skip-build      reuse the benchmark's last successful build
  --out FILE        append the results to FILE (default BENCHMARKS.md; --quick: print only)
  --quick           small sizes: a smoke check`;

interface MatchBenchOptions {
  rows: number;
  sizes: Sizes;
  dataCache?: string | undefined;
  rev?: string | undefined;
  skipBuild: boolean;
  out?: string | undefined;
}

function count(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new Error(`--${name}: expected a whole number ≥ ${min}`);
  return Number(value);
}

function parseOptions(argv: string[]): MatchBenchOptions {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      rows: { type: 'string' },
      people: { type: 'string' },
      seed: { type: 'string' },
      'data-cache': { type: 'string' },
      rev: { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      out: { type: 'string' },
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const people = count('people', v.people, v.quick ? 20_000 : 1_000_000);
  return {
    rows: count('rows', v.rows, v.quick ? 100_000 : 1_000_000),
    sizes: { people, companies: Math.max(1, Math.round(people / 10)), seed: count('seed', v.seed, 1, 0) },
    dataCache: v['data-cache'],
    rev: v.rev,
    skipBuild: v['skip-build'],
    out: v.out ?? (v.quick ? undefined : 'BENCHMARKS.md'),
  };
}

function report(session: Session<MatchBenchOptions>, runs: MatchRun[]): string {
  const { options: o } = session;
  return [
    entryHeading(session.date, session.command, session.machine, session.built),
    '',
    `\`enrich match people\` of a CSV list of ${int(o.rows)} rows (${LIST_MIX}) against a SQLite store of ` +
      `${int(o.sizes.people)} people; the list's "Email" column is looked up as both work and personal e-mail. ` +
      `Load average at start: ${session.loadAverage.map((l) => l.toFixed(2)).join(', ')}.`,
    '',
    matchTable(runs),
    '',
    MATCH_MEMORY_NOTE,
    '',
    ...runs.map((run) => `- ${run.label}: ${run.summary}`),
  ].join('\n');
}

runScript('bench:match', parseOptions, USAGE, async (session) => {
  const { options: o, work } = session;
  const files = await obtainDataset(o.sizes, work, o.dataCache, true);
  const db = path.join(work, 'match.db');
  say('import: people, then companies');
  await importFile('people', files.people, db, o.sizes.people);
  await importFile('companies', files.companies, db, o.sizes.companies);
  const runs = await measureMatches(files.people, db, o.rows, work);
  return report(session, runs);
});
