// The soak's entry for BENCHMARKS.md: the mix, one row per minute, and the verdict on errors, memory and p99.
import { cores, entryHeading, int, mib, ms, table, times } from './format.js';
import type { Session } from './session.js';
import type { Segment } from './soak-load.js';
import { MIX, type Pool } from './soak-mix.js';
import type { SoakOptions } from './soak-options.js';
import { median } from './stats.js';
import type { RssParts } from './system.js';

export interface Minute {
  minute: number;
  segment: Segment;
  /** Responses with a status their class should not get. */
  unexpected: number;
  /** Which, as `class status` → count. */
  unexpectedWhich: Map<string, number>;
  /** The server tree's RSS at the end of the minute, and the highest sample in it. */
  rss: RssParts;
  peakRss: number;
  /** The SQLite file and its WAL at the end of the minute: the audit log grows them. */
  dbBytes: number;
  walBytes: number;
  serverCores: number;
  loadCores: number;
  otherCores: number;
}

export interface SoakResults extends Session<SoakOptions> {
  sizes: { people: number; companies: number; seed: number };
  pool: Pool;
  max: Segment;
  maxUnexpected: number;
  target: number;
  connections: number;
  minutes: Minute[];
}

/** The statuses with a column of their own; the rest are summed under "other". */
const STATUS_COLUMNS = [200, 400, 401, 404, 409, 429];

/** RSS (anonymous and file-backed) of the last minute within 10% of the second's. */
export const RSS_TOLERANCE = 0.1;
/** No minute's p99 above this multiple of the median minute's. */
export const P99_SPREAD = 2;

const total = (rss: RssParts) => rss.anonBytes + rss.fileBytes;

function statusCounts(segment: Segment): Map<number, number> {
  const counts = new Map<number, number>();
  for (const byStatus of segment.statuses.values()) {
    for (const [status, n] of byStatus) counts.set(status, (counts.get(status) ?? 0) + n);
  }
  return counts;
}

function minuteRow(m: Minute): string[] {
  const counts = statusCounts(m.segment);
  const other = [...counts].filter(([s]) => !STATUS_COLUMNS.includes(s)).reduce((sum, [, n]) => sum + n, 0);
  return [
    String(m.minute),
    int(m.segment.requests),
    int(m.segment.perSecond),
    ms(m.segment.p50Ms),
    ms(m.segment.p99Ms),
    ...STATUS_COLUMNS.map((s) => int(counts.get(s) ?? 0)),
    int(other),
    int(m.unexpected),
    int(m.segment.socketErrors),
    mib(m.rss.anonBytes),
    mib(m.rss.fileBytes),
    mib(m.dbBytes),
    mib(m.walBytes),
    cores(m.serverCores),
    int(cpuPerRequestUs(m)),
    cores(m.otherCores),
  ];
}

/** The server's CPU per request, µs: what a leak or a growing structure would raise, whatever the noise. */
const cpuPerRequestUs = (m: Minute) => (m.serverCores * m.segment.seconds * 1e6) / m.segment.requests;

export interface Verdicts {
  unexpected: number;
  /** Last minute's RSS ÷ the second's; undefined under three minutes. */
  rssRatio: number | undefined;
  /** Worst minute's p99 ÷ the median minute's. */
  p99Spread: number;
  achievedShare: number;
  /** Server CPU per request, last minute ÷ second; undefined under three minutes. */
  cpuRatio: number | undefined;
}

export function verdictsOf(r: Pick<SoakResults, 'minutes' | 'target'>): Verdicts {
  const { minutes } = r;
  const second = minutes[1];
  const last = minutes.at(-1);
  const p99s = minutes.map((m) => m.segment.p99Ms);
  return {
    unexpected: minutes.reduce((sum, m) => sum + m.unexpected + m.segment.socketErrors, 0),
    rssRatio: minutes.length >= 3 && second && last ? total(last.rss) / total(second.rss) : undefined,
    p99Spread: Math.max(...p99s) / median(p99s),
    achievedShare: median(minutes.map((m) => m.segment.perSecond)) / r.target,
    cpuRatio:
      minutes.length >= 3 && second && last ? cpuPerRequestUs(last) / cpuPerRequestUs(second) : undefined,
  };
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');

function verdictTable(v: Verdicts): string {
  const rss =
    v.rssRatio === undefined
      ? ['RSS, last minute ÷ second', `within ±${RSS_TOLERANCE * 100}%`, 'needs 3 minutes or more', '–']
      : [
          'RSS, last minute ÷ second',
          `within ±${RSS_TOLERANCE * 100}%`,
          times(v.rssRatio),
          met(Math.abs(v.rssRatio - 1) <= RSS_TOLERANCE),
        ];
  return table(
    ['figure', 'target', 'measured', ''],
    [
      [
        'unexpected errors (wrong status for the class, socket errors, timeouts)',
        '0',
        int(v.unexpected),
        met(v.unexpected === 0),
      ],
      rss,
      [
        'p99, worst minute ÷ median minute',
        `≤ ${P99_SPREAD}`,
        times(v.p99Spread),
        met(v.p99Spread <= P99_SPREAD),
      ],
      ['rate achieved ÷ offered (median minute)', 'reported', times(v.achievedShare), 'reported'],
      [
        'server CPU per request, last minute ÷ second',
        'reported',
        v.cpuRatio === undefined ? '–' : times(v.cpuRatio),
        'reported',
      ],
    ],
    [2],
  );
}

function mixTable(): string {
  const shares = MIX.reduce((sum, c) => sum + c.share, 0);
  const keys = { main: 'the soak key', limited: 'a key of 5/s', unknown: 'a token no key has' };
  return table(
    ['request class', 'share', 'token', 'expected'],
    MIX.map((c) => [
      `\`${c.name}\``,
      `${Math.round((100 * c.share) / shares)}%`,
      keys[c.token],
      c.expected.join(', '),
    ]),
    [1],
  );
}

export function renderSoakReport(r: SoakResults): string {
  const o = r.options;
  const v = verdictsOf(r);
  const unexpectedWhich = new Map<string, number>();
  for (const m of r.minutes)
    for (const [k, n] of m.unexpectedWhich) unexpectedWhich.set(k, (unexpectedWhich.get(k) ?? 0) + n);
  const otherCores = median(r.minutes.map((m) => m.otherCores));
  return [
    entryHeading(r.date, r.command, r.machine, r.built),
    '',
    `Soak: ${r.minutes.length} minute(s) of mixed requests at ${int(r.target)} req/s offered, ${o.share}% of the ` +
      `${int(r.max.perSecond)} req/s the same mix reached flat out (${o.maxSeconds} s over ${o.connections} ` +
      `connections, p99 ${ms(r.max.p99Ms)} ms, ${int(r.maxUnexpected)} unexpected). \`enrich serve\` with ${o.workers} ` +
      `worker(s) over SQLite: ${int(r.sizes.people)} people, ${int(r.sizes.companies)} companies (seed ${r.sizes.seed}); ` +
      `requests drawn from ${int(r.pool.people.length)} people, ${int(r.pool.companies.length)} companies and ` +
      `${int(r.pool.sharedInboxes.length)} shared inboxes. wrk (one thread, on the same cores) sent them on a fixed schedule over ` +
      `${r.connections} connections. Load average at the start: ` +
      `${r.loadAverage.map((n) => n.toFixed(2)).join(', ')}; other processes used a median of ${cores(otherCores)} cores.`,
    '',
    mixTable(),
    '',
    table(
      [
        'minute',
        'requests',
        'req/s',
        'p50 ms',
        'p99 ms',
        ...STATUS_COLUMNS.map(String),
        'other',
        'unexpected',
        'socket errors',
        'RssAnon',
        'RssFile',
        'SQLite file',
        'WAL',
        'server cores',
        'server µs per request',
        'other cores',
      ],
      r.minutes.map(minuteRow),
      [...Array(21).keys()].slice(1),
    ),
    '',
    verdictTable(v),
    '',
    'Notes:',
    '',
    '- Each response is counted against its class by the request id the server echoes (`X-Request-Id`); an unexpected error is a status the class should not get, a connect, read or write error, or a timeout (10 s).',
    "- RSS is RssAnon (the server processes' own memory) and RssFile (mapped file pages: the serving index, shared by every worker, counted once per process) summed over the server's processes at the end of each minute; the SQLite file and its WAL grow with the audit log (one entry per keyed request).",
    "- p99 is of every response in the minute, whatever its status, timed from when wrk wrote the request. The schedule is kept by wrk's script (each connection waits for the next free slot of one clock); when every connection is waiting for a response, the next slots slip, so an overloaded server is offered fewer requests than the rate (the req/s column shows it) and queueing before a request is sent is not in its latency.",
    '- "server µs per request" is the server processes\' CPU time in the minute divided by its requests: unlike p99 it does not move with other processes\' load, and a leak or an ever-growing structure on the request path would raise it.',
    ...(unexpectedWhich.size > 0
      ? [`- Unexpected statuses: ${[...unexpectedWhich].map(([k, n]) => `${k} ×${int(n)}`).join(', ')}.`]
      : []),
  ].join('\n');
}
