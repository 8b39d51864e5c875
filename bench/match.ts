// npm run bench:match: `enrich match` of a long CSV list against a store of generated people — rows per
// second and whether the process's own memory stays flat — appended to BENCHMARKS.md like `npm run bench`.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { obtainDataset } from './data-files.js';
import { importFile, type Sizes, startMatch } from './enrich.js';
import { entryHeading, int, mib, seconds, table } from './format.js';
import { say } from './log.js';
import { LIST_MIX, writeLeadList } from './match-list.js';
import { runScript, type Session } from './session.js';
import { rssParts } from './system.js';

/** The bar: rows per second on the local store. */
const TARGET_ROWS_PER_SECOND = 50_000;
const SAMPLE_EVERY_MS = 250;

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

interface MatchRun {
  label: string;
  summary: string;
  rowsPerSecond: number;
  wallSeconds: number;
  /** RssAnon sampled through the run, in order. */
  anon: number[];
  peakFile: number;
}

/** Runs one `enrich match`, sampling its memory, and reads its summary line. */
async function measure(
  label: string,
  list: string,
  db: string,
  args: string[],
  work: string,
): Promise<MatchRun> {
  say(`match: ${label}`);
  const started = performance.now();
  const child = startMatch('people', list, db, ['--out', path.join(work, 'matched.out'), ...args]);
  const anon: number[] = [];
  let peakFile = 0;
  const sampler = setInterval(() => {
    const rss = rssParts(child.pid);
    if (Number.isFinite(rss.anonBytes)) anon.push(rss.anonBytes);
    if (Number.isFinite(rss.fileBytes)) peakFile = Math.max(peakFile, rss.fileBytes);
  }, SAMPLE_EVERY_MS);
  const code = await child.exited.finally(() => clearInterval(sampler));
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = child.stderrTail().split('\n').at(-1) ?? '';
  const rate = /\(([\d,]+) rows\/s\)$/.exec(summary);
  if (code !== 0 || !rate) throw new Error(`enrich match: exited with ${code}\n${child.stderrTail()}`);
  say(`match: ${summary}`);
  return { label, summary, rowsPerSecond: Number(rate[1]!.replaceAll(',', '')), wallSeconds, anon, peakFile };
}

/** RssAnon once the run is under way (the median of its second quarter) and at its peak: flat if close. */
function anonFigures(anon: number[]) {
  const quarter = anon.slice(Math.floor(anon.length / 4), Math.max(Math.floor(anon.length / 2), 1));
  const sorted = [...quarter].sort((a, b) => a - b);
  return { early: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, peak: Math.max(...anon) };
}

function report(session: Session<MatchBenchOptions>, runs: MatchRun[]): string {
  const { options: o } = session;
  const rows = runs.map((run, i) => {
    const { early, peak } = anonFigures(run.anon);
    const verdict = run.rowsPerSecond >= TARGET_ROWS_PER_SECOND ? 'met' : 'missed';
    // The bar is for the plain match, the first run; --fields adds a parse of each matched record.
    const target = i === 0 ? `≥ ${int(TARGET_ROWS_PER_SECOND)} rows/s: ${verdict}` : '';
    return [
      run.label,
      int(run.rowsPerSecond),
      seconds(run.wallSeconds),
      `${mib(early)} → ${mib(peak)}`,
      mib(run.peakFile),
      target,
    ];
  });
  return [
    entryHeading(session.date, session.command, session.machine, session.built),
    '',
    `\`enrich match people\` of a CSV list of ${int(o.rows)} rows (${LIST_MIX}) against a SQLite store of ` +
      `${int(o.sizes.people)} people; the list's "Email" column is looked up as both work and personal e-mail. ` +
      `Load average at start: ${session.loadAverage.map((l) => l.toFixed(2)).join(', ')}.`,
    '',
    table(['run', 'rows/s', 'wall time', 'RssAnon under way → peak', 'RssFile peak', 'target'], rows, [1, 2]),
    '',
    "RssAnon is the process's own memory; RssFile counts the pages of the serving index it has read, which are " +
      "the OS's file cache, shared with every other process, not the process's to keep.",
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
  const list = path.join(work, 'leads.csv');
  say(`list: writing ${int(o.rows)} rows`);
  await writeLeadList(files.people, o.rows, list);
  const runs = [
    await measure('CSV, enrich_ columns only', list, db, [], work),
    await measure(
      'CSV, --fields name,current_company.name',
      list,
      db,
      ['--fields', 'name,current_company.name'],
      work,
    ),
  ];
  return report(session, runs);
});
