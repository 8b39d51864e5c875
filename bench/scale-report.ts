// The results of `npm run bench:scale` as markdown: import time and lookup rates at full scale beside the baseline.
import type { LookupKind } from './dataset.js';
import type { ImportSummary, Sizes } from './enrich.js';
import { cores, entryHeading, int, mib, ms, seconds, table, times } from './format.js';
import type { Measured } from './loadgen.js';
import type { ScaleOptions } from './options.js';
import { medianOf } from './stats.js';
import type { Machine, RssParts } from './system.js';

export interface ScaleSide {
  sizes: Sizes;
  /** Generating the data set, or 0 when it came from the cache. */
  dataSeconds: number;
  people: ImportSummary;
  companies: ImportSummary;
  lookups: Map<LookupKind, Measured[]>;
  peakRssBytes: number;
  /** RssAnon and RssFile of the server after its load. */
  rss: RssParts;
  /** The people refreshed to the set's next month (`--snapshot`): `changed` inserted, updated or removed. */
  refresh: ImportSummary & { changed: number };
}

export interface ScaleResults {
  options: ScaleOptions;
  command: string;
  machine: Machine;
  built: string;
  loadAverage: number[];
  date: Date;
  baseline: ScaleSide;
  full: ScaleSide;
}

const TEN_MINUTES = 600;
const FIVE_MINUTES = 300;
const FULL_SCALE_PEOPLE = 10_000_000;
/** Wall time of both imports, each from its process's start: what the verdict judges. */
const importSeconds = (s: ScaleSide) => s.people.wallSeconds + s.companies.wallSeconds;
/** The same, as the commands printed their own times. */
const printedImportSeconds = (s: ScaleSide) => s.people.seconds + s.companies.seconds;
/** A rate from process start with the printed one beside it: `22,100 (printed 22,416)`. */
const rateCell = (summary: ImportSummary) =>
  `${int(summary.wallPerSecond)} (printed ${int(summary.perSecond)})`;
const rps = (s: ScaleSide, kind: LookupKind) => medianOf(s.lookups.get(kind) ?? [], (m) => m.rps);

function lookupRows(r: ScaleResults): string[][] {
  return [...r.full.lookups.keys()].map((kind) => {
    const p99 = (s: ScaleSide) => ms(medianOf(s.lookups.get(kind) ?? [], (m) => m.p99Ms));
    return [
      `\`${kind}\` req/s (p99 ms)`,
      `${int(rps(r.baseline, kind))} (${p99(r.baseline)})`,
      `${int(rps(r.full, kind))} (${p99(r.full)})`,
      times(rps(r.full, kind) / rps(r.baseline, kind)),
    ];
  });
}

export function renderScaleReport(r: ScaleResults): string {
  const { baseline: b, full: f } = r;
  const both = (cell: (s: ScaleSide) => string) => [cell(b), cell(f)];
  const ratio = (value: (s: ScaleSide) => number) => times(value(f) / value(b));
  const rows = [
    ['people', ...both((s) => int(s.sizes.people)), ratio((s) => s.sizes.people)],
    ['companies', ...both((s) => int(s.sizes.companies)), ratio((s) => s.sizes.companies)],
    ['generating the data set', ...both((s) => (s.dataSeconds > 1 ? seconds(s.dataSeconds) : 'cached')), ''],
    [
      'import people/s, from process start',
      ...both((s) => rateCell(s.people)),
      ratio((s) => s.people.wallPerSecond),
    ],
    [
      'import companies/s, from process start',
      ...both((s) => rateCell(s.companies)),
      ratio((s) => s.companies.wallPerSecond),
    ],
    [
      'import wall time, people + companies',
      ...both((s) => `${seconds(importSeconds(s))} (printed ${seconds(printedImportSeconds(s))})`),
      ratio(importSeconds),
    ],
    [
      'importer peak RSS, people / companies (target ≤ 500 MB)',
      ...both((s) => `${mib(s.people.peakRssBytes)} / ${mib(s.companies.peakRssBytes)}`),
      ratio((s) => s.people.peakRssBytes),
    ],
    [
      'refresh people to the next month, wall time (changed)',
      ...both((s) => `${seconds(s.refresh.wallSeconds)} (${int(s.refresh.changed)})`),
      ratio((s) => s.refresh.wallSeconds),
    ],
    [
      'refresh ÷ first import of the people',
      ...both((s) => times(s.refresh.wallSeconds / s.people.wallSeconds)),
      '',
    ],
    ...lookupRows(r),
    ['server RssAnon (its own memory)', ...both((s) => mib(s.rss.anonBytes)), ratio((s) => s.rss.anonBytes)],
    [
      'server RssFile (mapped index pages)',
      ...both((s) => mib(s.rss.fileBytes)),
      ratio((s) => s.rss.fileBytes),
    ],
    ['server peak RSS', ...both((s) => mib(s.peakRssBytes)), ratio((s) => s.peakRssBytes)],
  ];
  const worst = Math.min(...[...f.lookups.keys()].map((kind) => rps(f, kind) / rps(b, kind)));
  const fullImport = importSeconds(f);
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const isFullScale = f.sizes.people >= FULL_SCALE_PEOPLE;
  // At a reduced size the import target cannot be judged; a linear projection says roughly where it would land.
  const projected = (fullImport * FULL_SCALE_PEOPLE) / f.sizes.people;
  const printed = `printed ${seconds(printedImportSeconds(f))}`;
  const importRow = isFullScale
    ? [`${seconds(fullImport)} (${printed})`, verdict(fullImport <= TEN_MINUTES)]
    : [
        `${seconds(fullImport)} (${printed}); ≈ ${seconds(projected)} at 10M if linear`,
        'not measured (reduced size)',
      ];
  const size = (s: ScaleSide) => `${int(s.sizes.people)} people`;
  const refresh = f.refresh.wallSeconds;
  const changedShare = `${((100 * f.refresh.changed) / f.sizes.people).toFixed(1)}% changed`;
  const refreshRow = isFullScale
    ? [`${seconds(refresh)} (${changedShare})`, verdict(refresh <= FIVE_MINUTES)]
    : [
        `${seconds(refresh)} (${changedShare}); ≈ ${seconds((refresh * FULL_SCALE_PEOPLE) / f.sizes.people)} at 10M if linear`,
        'not measured (reduced size)',
      ];
  const targets = [
    [
      `import of ${size(f)} and ${int(f.sizes.companies)} companies, wall time from process start`,
      `≤ 10 min at ${int(FULL_SCALE_PEOPLE)} people`,
      ...importRow,
    ],
    [
      `snapshot refresh of ${size(f)} to the next month, wall time from process start`,
      `≤ 5 min at ${int(FULL_SCALE_PEOPLE)} people`,
      ...refreshRow,
    ],
    [
      `lookup rate at ${size(f)} ÷ at ${size(b)}, worst kind`,
      `≥ 0.80 at ${int(FULL_SCALE_PEOPLE)} people`,
      times(worst),
      isFullScale ? verdict(worst >= 0.8) : `${verdict(worst >= 0.8)} at ${size(f)} (reduced size)`,
    ],
    [
      `server RssAnon at ${int(f.sizes.people)} people`,
      isFullScale ? '≤ 600 MB' : '≤ 250 MB at 1,000,000',
      `${(f.rss.anonBytes / 1e6).toFixed(0)} MB`,
      verdict(f.rss.anonBytes <= (isFullScale ? 600e6 : 250e6)),
    ],
  ];
  const all = [...b.lookups.values(), ...f.lookups.values()].flat();
  const o = r.options;
  return [
    entryHeading(r.date, r.command, r.machine, r.built),
    '',
    `Full scale against a ${int(o.baselinePeople)}-people baseline, both served at once and loaded in turn, ` +
      `${o.runs} round(s), ${o.duration} s per load run after ${o.warmup} s warm-up, ${o.connections} connections, ` +
      `${o.workers} server process(es). Load average at the start: ${r.loadAverage.map((n) => n.toFixed(2)).join(', ')}; ` +
      `other processes used a median of ${cores(medianOf(all, (m) => m.otherCores))} cores during the load runs.` +
      (isFullScale
        ? ''
        : ` **Reduced size**: the issue's full scale is 10,000,000 people and 1,500,000 companies.`),
    '',
    table(['', 'baseline', 'full', 'full ÷ baseline'], rows, [1, 2, 3]),
    '',
    table(['figure', 'target', 'measured', ''], targets, [2]),
  ].join('\n');
}
