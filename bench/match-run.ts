// One `enrich match` of a lead list against a SQLite store, timed and its memory sampled: shared by
// `npm run bench` (in the same run as the lookups) and `npm run bench:match` (on its own, at any size).
import path from 'node:path';
import { startMatch } from './enrich.js';
import { int, mib, seconds, table } from './format.js';
import { say } from './log.js';
import { writeLeadList } from './match-list.js';
import { rssParts as rssOf } from './system.js';

/** The bar: rows per second on the local store. */
export const TARGET_ROWS_PER_SECOND = 50_000;
/** RssAnon at its peak may exceed the run's early level by this share and still count as flat. */
export const FLAT_MEMORY_GROWTH = 0.2;
const SAMPLE_EVERY_MS = 250;

export interface MatchRun {
  label: string;
  summary: string;
  rows: number;
  /** Rows per second of wall time from process start to exit: what the verdict judges. */
  rowsPerSecond: number;
  /** The rate the command printed in its summary line, timed by itself. */
  printedRowsPerSecond: number;
  wallSeconds: number;
  /** RssAnon sampled through the run, in order. */
  anon: number[];
  peakFile: number;
}

/** Runs one `enrich match people`, sampling its memory, and reads its summary line. */
async function measure(label: string, list: string, db: string, args: string[], work: string) {
  say(`match: ${label}`);
  const started = performance.now();
  const child = startMatch('people', list, db, ['--out', path.join(work, 'matched.out'), ...args]);
  const anon: number[] = [];
  let peakFile = 0;
  const sampler = setInterval(() => {
    const rss = rssOf(child.pid);
    if (Number.isFinite(rss.anonBytes)) anon.push(rss.anonBytes);
    if (Number.isFinite(rss.fileBytes)) peakFile = Math.max(peakFile, rss.fileBytes);
  }, SAMPLE_EVERY_MS);
  const code = await child.exited.finally(() => clearInterval(sampler));
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = child.stderrTail().split('\n').at(-1) ?? '';
  const figures = /^([\d,]+) rows:.*\(([\d,]+) rows\/s\)$/.exec(summary);
  if (code !== 0 || !figures) throw new Error(`enrich match: exited with ${code}\n${child.stderrTail()}`);
  const number = (text: string) => Number(text.replaceAll(',', ''));
  const rows = number(figures[1]!);
  const rowsPerSecond = rows / wallSeconds;
  say(`match: ${summary}; ${Math.round(rowsPerSecond)} rows/s from process start`);
  const printedRowsPerSecond = number(figures[2]!);
  return {
    label,
    summary,
    rows,
    rowsPerSecond,
    printedRowsPerSecond,
    wallSeconds,
    anon,
    peakFile,
  } satisfies MatchRun;
}

/**
 * Writes a list of `rows` rows drawn from the people file, then matches it twice against `db`: with the
 * `enrich_` columns only (the bar), and with `--fields name,current_company.name`.
 */
export async function measureMatches(peopleFile: string, db: string, rows: number, work: string) {
  const list = path.join(work, 'leads.csv');
  say(`match: writing a list of ${int(rows)} rows`);
  await writeLeadList(peopleFile, rows, list);
  return [
    await measure('CSV, enrich_ columns only', list, db, [], work),
    await measure(
      'CSV, --fields name,current_company.name',
      list,
      db,
      ['--fields', 'name,current_company.name'],
      work,
    ),
  ];
}

/** RssAnon once the run is under way (the median of its second quarter) and at its peak: flat if close. */
export function anonFigures(anon: number[]) {
  const quarter = anon.slice(Math.floor(anon.length / 4), Math.max(Math.floor(anon.length / 2), 1));
  const sorted = [...quarter].sort((a, b) => a - b);
  return { early: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, peak: Math.max(...anon) };
}

/** The plain run (the first) against the bars: its rate from process start, and its memory flat. */
export function matchVerdicts(runs: MatchRun[]) {
  const plain = runs[0];
  if (!plain) return undefined;
  const { early, peak } = anonFigures(plain.anon);
  const growth = peak / early - 1;
  return {
    rowsPerSecond: plain.rowsPerSecond,
    printedRowsPerSecond: plain.printedRowsPerSecond,
    fast: plain.rowsPerSecond >= TARGET_ROWS_PER_SECOND,
    growth,
    flat: Number.isFinite(growth) && growth <= FLAT_MEMORY_GROWTH,
  };
}

export function matchTable(runs: MatchRun[]): string {
  const rows = runs.map((run, i) => {
    const { early, peak } = anonFigures(run.anon);
    const verdict = run.rowsPerSecond >= TARGET_ROWS_PER_SECOND ? 'met' : 'missed';
    // The bar is for the plain match, the first run; --fields adds a parse of each matched record.
    const target = i === 0 ? `≥ ${int(TARGET_ROWS_PER_SECOND)} rows/s: ${verdict}` : '';
    return [
      run.label,
      int(run.rowsPerSecond),
      int(run.printedRowsPerSecond),
      seconds(run.wallSeconds),
      `${mib(early)} → ${mib(peak)}`,
      mib(run.peakFile),
      target,
    ];
  });
  return table(
    [
      'run',
      'rows/s from process start',
      'rows/s as printed',
      'wall time',
      'RssAnon under way → peak',
      'RssFile peak',
      'target (judged from process start)',
    ],
    rows,
    [1, 2, 3],
  );
}

export const MATCH_MEMORY_NOTE =
  "RssAnon is the process's own memory; RssFile counts the pages of the serving index it has read, which are " +
  "the OS's file cache, shared with every other process, not the process's to keep.";
