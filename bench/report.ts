// The results of `npm run bench` as markdown: lookups against the ceiling, import, json-server, memory, targets.
import { bulkTable } from './bulk-report.js';
import { COMPANY_LOOKUPS, type LookupKind, PERSON_LOOKUPS } from './dataset.js';
import { duringTable } from './during.js';
import type { ImportSummary } from './enrich.js';
import { feedTable } from './feed.js';
import { cores, entryHeading, int, mib, ms, seconds, table, times } from './format.js';
import type { Measured } from './loadgen.js';
import { loadGeneratorName } from './loadgen.js';
import {
  CEILING_COMPANY,
  CEILING_PEOPLE,
  ISSUE_24_KINDS,
  methodLoad,
  postgresTarget,
  UNACCOUNTED_ID,
} from './lookups.js';
import { LIST_MIX } from './match-list.js';
import { matchTable } from './match-run.js';
import { type BenchResults, perCore, perCoreRatio, ratio, rps } from './results.js';
import { searchTable } from './searches.js';
import { medianOf } from './stats.js';
import { notes, targetTable } from './verdicts.js';

const LABELS: Record<LookupKind, string> = {
  id: 'people by `id`',
  ln_url: 'people by `ln_url`',
  work_email: 'people by `work_email`',
  name_company: 'people by `name` + `company_domain`',
  website: 'company by `website`',
  abn: 'company by `abn`',
};

/** One load's row of a lookup table: medians of its runs, with its share of a ceiling. */
function row(label: string, runs: Measured[] | undefined, share: string, perCoreShare: string) {
  const m = runs ?? [];
  const non2xx = m.reduce((sum, x) => sum + x.non2xx + x.errors, 0);
  return [
    label,
    int(rps(m)),
    share,
    ms(medianOf(m, (x) => x.p50Ms)),
    ms(medianOf(m, (x) => x.p99Ms)),
    cores(medianOf(m, (x) => x.serverCores)),
    int(perCore(m)),
    perCoreShare,
    cores(medianOf(m, (x) => x.loadCores)),
    cores(medianOf(m, (x) => x.otherCores)),
    int(non2xx),
  ];
}

const LOOKUP_HEADER = [
  'load',
  'req/s',
  '× ceiling',
  'p50 ms',
  'p99 ms',
  'server cores',
  'req/s per server core',
  '× ceiling per core',
  'load-gen cores',
  'other cores',
  'non-2xx',
];
const LOOKUP_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

function lookupTable(r: BenchResults): string {
  /** A row beside a kind's own, against the same ceiling, when the run measured it. */
  const variant = (name: string, label: string, ceiling: string) => {
    const runs = r.lookups.get(name);
    if (!runs) return [];
    const ceilingRuns = r.lookups.get(ceiling);
    return [
      row(label, runs, times(rps(runs) / rps(ceilingRuns)), times(perCore(runs) / perCore(ceilingRuns))),
    ];
  };
  const kindRows = (k: LookupKind, ceiling: string) => [
    row(LABELS[k], r.lookups.get(k), times(ratio(r, k)), times(perCoreRatio(r, k))),
    ...variant(postgresTarget(k), `${LABELS[k]}, PostgreSQL`, ceiling),
    ...(k === 'id' ? variant(UNACCOUNTED_ID, 'people by `id`, audit and metering off', ceiling) : []),
  ];
  const rows = [
    row(
      `ceiling: static ${int(r.bodyBytes.person)}-byte person`,
      r.lookups.get(CEILING_PEOPLE),
      '1.00×',
      '1.00×',
    ),
    ...PERSON_LOOKUPS.flatMap((k) => kindRows(k, CEILING_PEOPLE)),
    row(
      `ceiling: static ${int(r.bodyBytes.company)}-byte company`,
      r.lookups.get(CEILING_COMPANY),
      '1.00×',
      '1.00×',
    ),
    ...COMPANY_LOOKUPS.flatMap((k) => kindRows(k, CEILING_COMPANY)),
    row(`people by \`id\` at ${int(r.atRate.offered)} req/s offered (80% of max)`, r.atRate.runs, '–', '–'),
  ];
  return table(LOOKUP_HEADER, rows, LOOKUP_NUMBERS);
}

/** Issue 24's method: the same table for its rounds (wider samples, 32 connections). */
function methodTable(r: BenchResults): string {
  const { lookups } = r.method;
  const group = (ceiling: string, entity: readonly LookupKind[]) => {
    const against = (per: (m: Measured[] | undefined) => number, k: LookupKind) =>
      times(per(lookups.get(k)) / per(lookups.get(ceiling)));
    return [
      row(ceiling, lookups.get(ceiling), '1.00×', '1.00×'),
      ...ISSUE_24_KINDS.filter((k) => entity.includes(k)).map((k) =>
        row(LABELS[k], lookups.get(k), against(rps, k), against(perCore, k)),
      ),
    ];
  };
  const rows = [...group(CEILING_PEOPLE, PERSON_LOOKUPS), ...group(CEILING_COMPANY, COMPANY_LOOKUPS)];
  return table(LOOKUP_HEADER, rows, LOOKUP_NUMBERS);
}

/** One import's row: its rate judged on wall time from process start, the rate it printed, and the floor. */
function importRow(
  r: BenchResults,
  label: string,
  runs: ImportSummary[],
  floor: 'peopleFloor' | 'companiesFloor',
) {
  const wallPerSecond = medianOf(runs, (s) => s.wallPerSecond);
  const floorPerSecond = medianOf(r.imports, (x) => x[floor].perSecond);
  return [
    label,
    int(runs[0]?.records ?? Number.NaN),
    int(wallPerSecond),
    int(medianOf(runs, (s) => s.perSecond)),
    int(floorPerSecond),
    times(floorPerSecond / wallPerSecond),
    seconds(medianOf(runs, (s) => s.wallSeconds)),
    mib(Math.max(...runs.map((s) => s.peakRssBytes))),
  ];
}

function importTable(r: BenchResults): string {
  const rows = [
    importRow(
      r,
      'people',
      r.imports.map((x) => x.people),
      'peopleFloor',
    ),
    importRow(
      r,
      'companies',
      r.imports.map((x) => x.companies),
      'companiesFloor',
    ),
  ];
  if (r.postgres) {
    const runs = r.postgres.imports;
    rows.push(
      importRow(
        r,
        'people, PostgreSQL (`COPY`)',
        runs.map((x) => x.people),
        'peopleFloor',
      ),
      importRow(
        r,
        'the same people again, PostgreSQL',
        runs.map((x) => x.peopleAgain),
        'peopleFloor',
      ),
      importRow(
        r,
        'companies, PostgreSQL (`COPY`)',
        runs.map((x) => x.companies),
        'companiesFloor',
      ),
    );
  }
  const refreshes = r.imports.flatMap((x) => (x.refresh ? [x.refresh] : []));
  if (refreshes.length > 0) {
    rows.splice(
      1,
      0,
      importRow(
        r,
        'people, snapshot refresh to the next month (`--snapshot`, ~2% changed)',
        refreshes.map((x) => x.forward),
        'peopleFloor',
      ),
      importRow(
        r,
        'people, snapshot refresh back',
        refreshes.map((x) => x.back),
        'peopleFloor',
      ),
    );
  }
  const header = [
    'import',
    'records',
    'records/s from process start',
    'records/s as printed',
    'read + JSON.parse floor/s',
    'wall time ÷ floor',
    'wall time',
    'peak RSS (largest run)',
  ];
  return table(header, rows, [1, 2, 3, 4, 5, 6, 7]);
}

/** The snapshot refresh's wall time as a share of the first import's (issue 20: at most a third). */
function refreshNote(r: BenchResults): string[] {
  const runs = r.imports.filter((x) => x.refresh);
  if (runs.length === 0) return [];
  const share = medianOf(runs, (x) => x.refresh!.forward.wallSeconds / x.people.wallSeconds);
  const changed = medianOf(runs, (x) => x.refresh!.forward.changed);
  return [
    `A snapshot refresh of the same people to the next month (${int(changed)} inserted, updated or removed) ` +
      `took ${times(share)} the wall time of their first import (which includes change detection: one created ` +
      'event a record); the refresh back undoes the same changes.',
    '',
  ];
}

function jsonServerTable(r: BenchResults): string {
  const enrichId = rps(r.lookups.get('id'));
  const rows = r.jsonServer.map((j) =>
    j.failure
      ? [int(j.size), `failed: ${j.failure}`, '–', '–', '–', '–', '–']
      : [
          int(j.size),
          seconds(j.startSeconds),
          int(rps(j.runs)),
          ms(medianOf(j.runs, (x) => x.p50Ms)),
          ms(medianOf(j.runs, (x) => x.p99Ms)),
          mib(j.peakRssBytes),
          times(enrichId / rps(j.runs)),
        ],
  );
  const header = [
    'people held',
    'start-up',
    'req/s by id',
    'p50 ms',
    'p99 ms',
    'peak RSS',
    `Enrich (${int(r.options.people)}) ÷ json-server`,
  ];
  return table(header, rows, [0, 1, 2, 3, 4, 5, 6]);
}

function memoryTable(r: BenchResults): string {
  const rows = r.memory.map((m) =>
    'skipped' in m
      ? [int(m.people), '–', '–', `skipped: ${m.skipped}`, '–', '–', '–']
      : [
          int(m.people),
          mib(m.rss.anonBytes),
          mib(m.rss.fileBytes),
          mib(m.peakRssBytes),
          int(m.processes),
          int(m.idRps),
          int(m.importPeoplePerSecond),
        ],
  );
  const main = `${int(r.options.people)} (the run above, after all its load)`;
  rows.push([main, '–', '–', mib(r.mainPeakRssBytes), '–', '–', '–']);
  const header = [
    'people in store',
    'RssAnon',
    'RssFile',
    'peak RSS (VmHWM)',
    'processes',
    'id req/s',
    'import people/s from process start',
  ];
  return table(header, rows, [1, 2, 3, 4, 5, 6]);
}

const storeText = (r: BenchResults) =>
  r.postgres
    ? `SQLite store, and PostgreSQL ${r.postgres.version} ${r.postgres.local ? 'on this machine' : 'on another host'} ` +
      'where a row says so'
    : 'SQLite store';

export function renderReport(r: BenchResults): string {
  const o = r.options;
  const settings =
    `Data set: ${int(o.people)} people, ${int(o.companies)} companies (seed ${o.seed}); keys drawn at random from ` +
    `${int(o.sample)} people and ${int(o.sample)} companies. ${o.runs} run(s) of everything, medians quoted; ` +
    `${o.duration} s per load run after ${o.warmup} s of warm-up; ${o.connections} connections; ${loadGeneratorName()} in its ` +
    `own process on 127.0.0.1; ${o.workers} server process(es) for Enrich and the ceiling alike; ${storeText(r)}; ` +
    `key rate 1,000,000/s. Load average when the run started: ${r.loadAverage.map((n) => n.toFixed(2)).join(', ')}` +
    (o.waitQuiet > 0 ? `; each load run first waited up to ${o.waitQuiet} s for a quiet second.` : '.');
  return [
    entryHeading(r.date, r.command, r.machine, r.built),
    '',
    settings,
    '',
    lookupTable(r),
    '',
    `Issue 24's method (\`${methodLoad(r.method)}\`, paths drawn from ` +
      `${int(r.method.people)} people and every company, Enrich and the static server alternated in each of ` +
      `${r.options.runs} round(s), medians):`,
    '',
    methodTable(r),
    '',
    ...(r.searches.length > 0
      ? [
          'People searches (`POST /people/search`, issue 13), each at its maximum rate, then at 80% of it (medians of the runs):',
          '',
          searchTable(r.searches),
          '',
        ]
      : []),
    bulkTable(r),
    '',
    'The feed of changes (`GET /v1/changes?limit=1000`, issue 20): one reader through the events the imports logged:',
    '',
    feedTable(r.feed),
    '',
    "`id` lookups (wrk, the lookups' connections) alone, then for 3 s while `enrich import people --snapshot` " +
      'refreshes the set to its evolved month in another process (issue 20); then for 5 s from the first commit ' +
      'of a refresh to the set evolved until it logs 10,000 job changes or more, once with no endpoint and once ' +
      'with an endpoint for `person.job_changed` on a receiver on this machine, the ratio between the two being ' +
      "what the deliveries cost the lookups, the refresh's own cost aside; then the same refresh with the endpoint and no lookups, " +
      'for the rate of its deliveries (first commit to last first attempt) and their delay (issue 21):',
    '',
    duringTable(r.during),
    '',
    ...(r.match.length > 0
      ? [
          `\`enrich match people\` of a CSV list of ${int(r.options.matchRows)} rows (${LIST_MIX}) against the ` +
            `SQLite store above, with its servers stopped:`,
          '',
          matchTable(r.match),
          '',
        ]
      : []),
    importTable(r),
    '',
    ...refreshNote(r),
    `json-server 0.17 (\`GET /people?id=\`, a linear scan), same load:`,
    '',
    jsonServerTable(r),
    '',
    memoryTable(r),
    '',
    targetTable(r),
    '',
    'Notes:',
    '',
    ...notes(r),
  ].join('\n');
}
