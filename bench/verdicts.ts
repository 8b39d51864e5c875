// The issue's targets beside what a run measured, and the notes a reader needs to judge the figures.
import { bulkShare } from './bulk-report.js';
import { BULK_ITEMS, type LookupKind } from './dataset.js';
import type { ImportSummary } from './enrich.js';
import { cores, int, mib, ms, table, times } from './format.js';
import type { PostgresImportRun, StoreDisk } from './imports.js';
import { loadGeneratorName } from './loadgen.js';
import {
  atRateLatency,
  BULK_ID_UNACCOUNTED,
  CEILING_PEOPLE,
  type ISSUE_24_KINDS,
  methodLoad,
  OTHER_JUDGED_KINDS,
  POSTGRES_LOOKUPS,
  postgresTarget,
  UNACCOUNTED_ID,
} from './lookups.js';
import { FLAT_MEMORY_GROWTH, matchVerdicts, TARGET_ROWS_PER_SECOND } from './match-run.js';
import type { MemoryFigure } from './memory.js';
import {
  answeredWithWarmup,
  type BenchResults,
  perCore,
  perCoreRatio,
  ratio,
  ratioIn,
  rps,
} from './results.js';
import { medianOf } from './stats.js';
import { streamRow, TARGET_ITEMS_PER_SECOND } from './stream.js';

/** Issue 4: lookups by id with the audit log and usage meter on, as a share of the rate with them off. */
function accountingRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const off = r.lookups.get(UNACCOUNTED_ID);
  const share = off ? rps(r.lookups.get('id')) / rps(off) : undefined;
  const perCoreShare = off ? perCore(r.lookups.get('id')) / perCore(off) : undefined;
  return [
    '`id` lookups with audit and metering on ÷ off',
    '≥ 0.90',
    share === undefined ? '–' : `${times(share)} (${times(perCoreShare!)} per core)`,
    verdict(share === undefined ? undefined : share >= 0.9),
  ];
}

/**
 * Issue 22: every kind of lookup on the PostgreSQL server (answered from its local index) as a share of the
 * same lookups on SQLite, the worst kind judged; and PostgreSQL's transactions per lookup over the rounds.
 */
function postgresLookupRows(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[][] {
  if (!r.postgres) return [];
  const shares = POSTGRES_LOOKUPS.map((kind: LookupKind) => ({
    kind,
    share: rps(r.lookups.get(postgresTarget(kind))) / rps(r.lookups.get(kind)),
  }));
  const worst = shares.reduce((a, b) => (b.share < a.share ? b : a));
  const lookups = answeredWithWarmup(
    POSTGRES_LOOKUPS.flatMap((kind) => r.lookups.get(postgresTarget(kind)) ?? []),
    r.options.warmup + r.options.duration,
  );
  const perLookup = r.postgres.lookupTransactions / Math.max(1, lookups);
  return [
    [
      'lookups on PostgreSQL (its local index) ÷ the same on SQLite, worst kind',
      '≥ 0.90',
      `${times(worst.share)} (\`${worst.kind}\`; ${shares.map((x) => `${x.kind} ${times(x.share)}`).join(', ')})`,
      verdict(worst.share >= 0.9),
    ],
    [
      'PostgreSQL transactions per lookup on it (pg_stat_database over the rounds)',
      '≤ 0.01',
      `${perLookup.toFixed(4)} (${int(r.postgres.lookupTransactions)} over about ${int(lookups)})`,
      verdict(perLookup <= 0.01),
    ],
  ];
}

/** Issue 12: `enrich match` on the local store, its rate (wall time from process start) and its memory flat. */
function matchRows(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[][] {
  const m = matchVerdicts(r.match);
  return [
    [
      `\`enrich match\` of ${int(r.options.matchRows)} rows, rows/s, wall time from process start`,
      `≥ ${int(TARGET_ROWS_PER_SECOND)}`,
      m ? `${int(m.rowsPerSecond)} (printed: ${int(m.printedRowsPerSecond)})` : '–',
      verdict(m?.fast),
    ],
    [
      '… its RssAnon at peak over under way',
      `≤ +${FLAT_MEMORY_GROWTH * 100}%`,
      m ? `${m.growth >= 0 ? '+' : ''}${(m.growth * 100).toFixed(0)}%` : '–',
      verdict(m?.flat),
    ],
  ];
}

/** PostgreSQL's import through `COPY` (issue 5: 30,000 people/s), into an empty database and again over itself. */
export const POSTGRES_IMPORT_TARGET = 30_000;

function postgresImportRows(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[][] {
  if (!r.postgres) return [];
  const runs = r.postgres.imports;
  const row = (label: string, pick: (run: PostgresImportRun) => ImportSummary) => {
    const wall = medianOf(runs, (x) => pick(x).wallPerSecond);
    return [
      `PostgreSQL import people/s (\`COPY\`), ${label}, wall time from process start`,
      `≥ ${int(POSTGRES_IMPORT_TARGET)}`,
      `${int(wall)} (printed: ${int(medianOf(runs, (x) => pick(x).perSecond))})`,
      verdict(wall >= POSTGRES_IMPORT_TARGET),
    ];
  };
  return [
    row('into an empty database', (x) => x.people),
    row('the same people again, over themselves', (x) => x.peopleAgain),
  ];
}

/**
 * Issue 13: a match by name and company costs at most 1.5× an e-mail lookup, per server core (server CPU
 * per request, so that a load generator short of CPU does not decide it).
 */
function nameMatchRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const names = r.lookups.get('name_company');
  const email = r.lookups.get('work_email');
  const cost = names && email ? perCore(email) / perCore(names) : undefined;
  return [
    '`name` + `company_domain` cost ÷ `work_email` cost, per server core',
    '≤ 1.5',
    cost === undefined ? '–' : `${times(cost)} (${times(rps(email) / rps(names))} by rate)`,
    verdict(cost === undefined ? undefined : cost <= 1.5),
  ];
}

/** The issue's targets beside what this run measured. */
export function targetTable(r: BenchResults): string {
  const verdict = (ok: boolean | undefined) =>
    ok === undefined ? 'not measured' : ok ? 'met' : '**not met**';
  const idShare = ratio(r, 'id');
  const others = OTHER_JUDGED_KINDS.map((k) => ratio(r, k));
  const worst = Math.min(...others);
  const worstPerCore = Math.min(...OTHER_JUDGED_KINDS.map((k) => perCoreRatio(r, k)));
  const { p99Ms: p99 } = atRateLatency(r.atRate);
  const people = medianOf(r.imports, (x) => x.people.wallPerSecond);
  const printed = medianOf(r.imports, (x) => x.people.perSecond);
  const floorShare = medianOf(r.imports, (x) => x.peopleFloor.perSecond) / people;
  const at = (n: number) => r.memory.find((m): m is MemoryFigure => m.people === n && !('skipped' in m));
  const small = at(10_000);
  const million = at(1_000_000);
  const growth = million && small ? million.rss.anonBytes / small.rss.anonBytes - 1 : undefined;
  const largest = r.jsonServer.filter((j) => !j.failure).at(-1);
  const rows = [
    [
      'lookups by `id` ÷ ceiling',
      '≥ 0.90',
      `${times(idShare)} (${times(perCoreRatio(r, 'id'))} per core)`,
      verdict(idShare >= 0.9),
    ],
    [
      'other lookups ÷ ceiling (worst)',
      '≥ 0.85',
      `${times(worst)} (${times(worstPerCore)} per core)`,
      verdict(worst >= 0.85),
    ],
    ...methodRows(r, verdict),
    [
      `p99 at 80% of max rate (median of ${r.atRate.runs.length} run(s))`,
      '≤ 5 ms',
      `${ms(p99)} ms`,
      verdict(p99 <= 5),
    ],
    nameMatchRow(r, verdict),
    accountingRow(r, verdict),
    [
      `bulk of ${BULK_ITEMS} \`id\` lookups: records/s per server core ÷ single \`id\` lookups per core`,
      '≥ 10',
      `${times(bulkShare(r))} (audit and metering off: ${times(bulkShare(r, BULK_ID_UNACCOUNTED, UNACCOUNTED_ID))})`,
      verdict(Number.isFinite(bulkShare(r)) ? bulkShare(r) >= 10 : undefined),
    ],
    streamVerdictRow(r, verdict),
    ...matchRows(r, verdict),
    [
      'import people/s, wall time from process start',
      '≥ 50,000',
      `${int(people)} (printed: ${int(printed)})`,
      verdict(people >= 50_000),
    ],
    ['import wall time ÷ read-and-parse floor', '≤ 3', times(floorShare), verdict(floorShare <= 3)],
    importerRssRow(r, verdict),
    refreshRssRow(r, verdict),
    smallImportRow(small, verdict),
    auditStorageRow(r, verdict),
    diskRow(r, verdict),
    ...postgresImportRows(r, verdict),
    ...postgresLookupRows(r, verdict),
    [
      'anonymous RSS (RssAnon) at 1,000,000 people',
      '≤ 250 MB',
      million
        ? `${mib(million.rss.anonBytes)} (${(million.rss.anonBytes / 1e6).toFixed(0)} MB; RssFile ${mib(million.rss.fileBytes)})`
        : '–',
      verdict(million && million.rss.anonBytes <= 250e6),
    ],
    [
      '… growth over 10,000 people',
      '≤ 20%',
      growth === undefined ? '–' : `${(growth * 100).toFixed(0)}%`,
      verdict(growth === undefined ? undefined : growth <= 0.2),
    ],
    [
      'Enrich ÷ json-server at its largest size',
      'a multiple',
      largest ? `${times(rps(r.lookups.get('id')) / rps(largest.runs))} (at ${int(largest.size)})` : '–',
      largest ? 'reported' : 'not measured',
    ],
  ];
  return table(['figure', 'target', 'measured', ''], rows, [2]);
}

/**
 * Issue 24's method (bench/lookups.ts ISSUE_24_METHOD): `id` ÷ its ceiling, and the worst other kind, each
 * with every kind's ratio and rate so the reader sees which one is worst.
 */
function methodRows(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[][] {
  const { people, connections, duration, lookups } = r.method;
  const shape = `${methodLoad({ connections, duration })}, paths from ${int(people)} people and every company, ${r.options.runs} alternated round(s)`;
  const share = (kind: (typeof ISSUE_24_KINDS)[number]) => ratioIn(lookups, kind);
  const worst = Math.min(...OTHER_JUDGED_KINDS.map(share));
  const each = OTHER_JUDGED_KINDS.map((k) => `${k} ${times(share(k))}`).join(', ');
  return [
    [
      `issue 24's method: lookups by \`id\` ÷ ceiling (${shape})`,
      '≥ 0.80',
      `${times(share('id'))} (${int(rps(lookups.get('id')))} ÷ ${int(rps(lookups.get(CEILING_PEOPLE)))} req/s)`,
      verdict(Number.isFinite(share('id')) ? share('id') >= 0.8 : undefined),
    ],
    [
      '… every other kind ÷ its ceiling (worst)',
      '≥ 0.75',
      `${times(worst)} (${each})`,
      verdict(Number.isFinite(worst) ? worst >= 0.75 : undefined),
    ],
  ];
}

/** Issue 24's stream: 1,000,000 lookups in one NDJSON bulk, at its rate, in constant memory. */
function streamVerdictRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const { measured, met } = streamRow(r.streams);
  return [
    'a stream of 1,000,000 `id` lookups (one NDJSON bulk), in constant memory',
    `≥ ${int(TARGET_ITEMS_PER_SECOND)} items/s, server RssAnon at peak ≤ +${FLAT_MEMORY_GROWTH * 100}% over under way`,
    measured,
    verdict(r.streams.length === 0 ? undefined : met),
  ];
}

/** Issue 24's bound on the importer's memory (peak RSS), in bytes. */
const IMPORTER_PEAK_RSS = 500e6;

/**
 * The largest peak RSS of the run's imports into an empty store (SQLite; the import table shows each, the
 * refreshes too), with the size it was reached at.
 */
function importerRssRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const runs = [
    ...r.imports.flatMap((x) =>
      [x.people, x.companies].map((s) => ({ bytes: s.peakRssBytes, people: x.people.records })),
    ),
    ...r.memory
      .filter((m): m is MemoryFigure => !('skipped' in m))
      .map((m) => ({ bytes: m.importPeakRssBytes, people: m.people })),
  ].filter((run) => Number.isFinite(run.bytes));
  const largest = runs.reduce<(typeof runs)[number] | undefined>(
    (most, run) => (most === undefined || run.bytes > most.bytes ? run : most),
    undefined,
  );
  const sizes = [...new Set(runs.map((run) => run.people))].sort((a, b) => a - b).map(int);
  return [
    `importer peak RSS, each import into an empty store (of ${sizes.join(', ') || '–'} people)`,
    '≤ 500 MB',
    largest
      ? `${(largest.bytes / 1e6).toFixed(0)} MB (${mib(largest.bytes)}, at ${int(largest.people)} people)`
      : '–',
    verdict(largest ? largest.bytes <= IMPORTER_PEAK_RSS : undefined),
  ];
}

/**
 * The same bound on the snapshot refreshes of the import runs' stores (`enrich import --snapshot`, a month's
 * changes and back): an importer too, whose changes map the serving index's pages (docs/data.md).
 */
function refreshRssRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const peaks = r.imports
    .flatMap((x) => (x.refresh ? [x.refresh.forward, x.refresh.back] : []))
    .map((s) => s.peakRssBytes)
    .filter(Number.isFinite);
  const largest = peaks.length > 0 ? Math.max(...peaks) : undefined;
  return [
    `… each snapshot refresh of that store (a month's changes, and back; ${int(r.options.people)} people)`,
    '≤ 500 MB',
    largest === undefined ? '–' : `${(largest / 1e6).toFixed(0)} MB (${mib(largest)})`,
    verdict(largest === undefined ? undefined : largest <= IMPORTER_PEAK_RSS),
  ];
}

/** Issue 24's bound on a 10,000-person import into an empty store, after start-up, in seconds. */
const SMALL_IMPORT_SECONDS = 1;

/**
 * The memory section's import of 10,000 people (one run): its time as the command printed it (timed after
 * its start-up, to the end of its indexes), beside its wall time from process start.
 */
function smallImportRow(
  small: MemoryFigure | undefined,
  verdict: (ok: boolean | undefined) => string,
): string[] {
  const seconds = small?.importPeopleSeconds;
  return [
    'import of 10,000 people into an empty store, after start-up (as printed; one run)',
    `< ${SMALL_IMPORT_SECONDS} s`,
    seconds === undefined
      ? '–'
      : `${seconds.toFixed(2)} s (${small!.importPeopleWallSeconds.toFixed(2)} s from process start)`,
    verdict(seconds === undefined ? undefined : seconds < SMALL_IMPORT_SECONDS),
  ];
}

/** Issue 24's bound on the audit log's size, tables and indexes, per audited lookup. */
const AUDIT_BYTES_PER_ENTRY = 64;

/** The main store's audit log after the run's lookups: bytes per entry (SQLite). */
function auditStorageRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const perEntry = r.audit && r.audit.entries > 0 ? r.audit.bytes / r.audit.entries : undefined;
  return [
    'audit log on disk per audited lookup, tables and indexes (SQLite)',
    `≤ ${AUDIT_BYTES_PER_ENTRY} bytes`,
    perEntry === undefined || !r.audit
      ? '–'
      : `${perEntry.toFixed(1)} bytes (${int(r.audit.entries)} entries, ${(r.audit.bytes / 1e6).toFixed(1)} MB)`,
    verdict(perEntry === undefined ? undefined : perEntry <= AUDIT_BYTES_PER_ENTRY),
  ];
}

/** Issue 24's bound on the store's size on disk: the SQLite file and the serving index ÷ the NDJSON imported. */
const DISK_SHARE = 1.5;

/** What the imports left on disk (the median of the runs; each imported the same files into a new store). */
function diskRow(r: BenchResults, verdict: (ok: boolean | undefined) => string): string[] {
  const disks = r.imports.map((x) => x.disk);
  const share = medianOf(disks, (d) => (d.sqliteBytes + d.indexBytes) / d.ndjsonBytes);
  const mb = (pick: (d: StoreDisk) => number) => `${(medianOf(disks, pick) / 1e6).toFixed(0)} MB`;
  return [
    'store on disk (SQLite file and serving index) ÷ the NDJSON imported into it',
    `≤ ${DISK_SHARE}`,
    disks.length === 0
      ? '–'
      : `${times(share)} (SQLite ${mb((d) => d.sqliteBytes)}, serving index ${mb((d) => d.indexBytes)}, ` +
        `NDJSON ${mb((d) => d.ndjsonBytes)})`,
    verdict(disks.length === 0 ? undefined : share <= DISK_SHARE),
  ];
}

/** Other processes' median use of the cores above which a run's figures say more about them than about Enrich. */
const BUSY_CORES = 0.25;

const generatorText = () =>
  loadGeneratorName() === 'wrk'
    ? 'wrk, a C client on one thread, leaves the server most of a core'
    : 'autocannon is JavaScript and needs about a core of its own';

/** What a reader needs to judge the figures, from this run's own numbers. */
export function notes(r: BenchResults): string[] {
  const ceiling = r.lookups.get(CEILING_PEOPLE) ?? [];
  const server = medianOf(ceiling, (m) => m.serverCores);
  const generator = medianOf(ceiling, (m) => m.loadCores);
  const other = medianOf([...r.lookups.values()].flat(), (m) => m.otherCores);
  const workers = r.options.workers;
  const bound =
    other >= BUSY_CORES
      ? 'so neither was saturated: other processes held the cores'
      : server >= 0.85 * workers
        ? 'so the static server is saturated and the ceiling is its own'
        : generator >= 0.85
          ? 'so the load generator, not the static server, sets the ceiling: a faster client (wrk) would raise it, and the ratios would fall'
          : 'so neither was saturated';
  const failed = [...r.lookups]
    .filter(([, runs]) => runs.some((m) => m.non2xx + m.errors > 0))
    .map(([name]) => name);
  const list = [
    `${r.machine.cores} cores are shared by the server under test and the load generator (${generatorText()}). ` +
      `In the /people ceiling runs the static server used ${cores(server)} cores ` +
      `and ${loadGeneratorName()} ${cores(generator)}, ${bound}.`,
    `Other processes on the machine used a median of ${cores(other)} cores during the load runs (the "other ` +
      `cores" column${other >= BUSY_CORES ? '). **The machine was busy: these figures understate what it can do; re-run it quiet**' : ', CPU time not spent by the server or the load generator)'}.`,
    "Imports and `enrich match` are judged on wall time from the command's process start to its exit (what a " +
      'user waits for); the rate each command printed, timed by itself after start-up, stands beside it.',
    'Req/s counts 2xx responses only. Latencies are of 2xx responses, timed in microseconds by the load process; ' +
      `at full load they are mostly queueing behind ${r.options.connections} connections, so the p99 that matters ` +
      'for a deployment is the one at 80% of the maximum rate.',
    'The ceiling returns a median-size real record (same bytes, same content type) for the same request paths, ' +
      "without authentication, rate limiting, lookup or Enrich's extra response headers.",
    'json-server keeps its whole file in memory and filters the array on every request, so its rate falls with ' +
      'its size; the multiple compares it with Enrich holding the full data set.',
    `Bulk rows: each request is one of ${int(r.options.sample / BULK_ITEMS)} JSON bodies of ${BULK_ITEMS} \`id\` ` +
      'lookups of the sampled people (POST /v1/people/bulk); records/s is requests/s times ' +
      `${BULK_ITEMS}. Each item is audited and metered as a single lookup: a journal line on the request ` +
      "thread and an audit entry the journal's folding thread packs into a segment, both in the server cores.",
    "RssAnon is the server processes' own memory (heaps, stacks, SQLite's page cache), summed, after lookups of " +
      'every kind; RssFile is the file pages they have mapped (the serving index, shared by every worker and held ' +
      "in the operating system's cache); peak RSS (VmHWM) counts both at their highest.",
  ];
  if (r.postgres)
    list.push(
      'PostgreSQL rows: the same data set imported by `enrich import` (through `COPY`) into a new database, ' +
        'its people then imported again over themselves (every record and its identifiers replaced), beside the ' +
        'same read-and-parse floor, and served by a second `enrich serve` with DATABASE_URL set. ' +
        (r.postgres.local
          ? "Their server cores include PostgreSQL's own processes, on this machine's same two cores."
          : "PostgreSQL ran on another host: its CPU is not in the server cores, and every query's network round " +
            'trip is in the latency.'),
    );
  if (failed.length > 0)
    list.push(`Some responses were not 2xx (${failed.join(', ')}): see the non-2xx column.`);
  return list.map((line) => `- ${line}`);
}
