// Lookups while the store changes (issues 20 and 21): `id` lookups during a snapshot refresh, and during the
// webhook deliveries a refresh causes, each against `id` lookups measured alone just before, in the same run.
// The webhook row also gives the delivery rate to a receiver on this machine and the p99 from an event's
// commit (its `timestamp`) to its first attempt.
import { once } from 'node:events';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { startWorker } from '../src/worker.js';
import { createKey, evolve, refreshSnapshot } from './enrich.js';
import { int, table } from './format.js';
import { type Measured, runLoad } from './loadgen.js';
import { say } from './log.js';
import type { Target } from './lookups.js';
import type { LoadOptions } from './options.js';
import type { FirstAttempt } from './receiver-thread.js';
import { median, p99, quantile } from './stats.js';

export interface DuringRun {
  /** `id` lookups a second alone, then during a month's refresh (issue 20). */
  alone: number;
  duringRefresh: number;
  /** That refresh: records changed, and its wall time. */
  changed: number;
  refreshSeconds: number;
  /**
   * `id` lookups a second during a refresh with ten thousand job changes or more: with no endpoint, then with
   * one for `person.job_changed` (issue 21: what the deliveries cost the lookups, the refresh's own cost aside).
   */
  duringManyChanges: number;
  duringDeliveries: number;
  /** With the load: the job changes delivered, and the p99 from commit to first attempt. */
  deliveredUnderLoad: number;
  commitToAttemptP99UnderLoadMs: number;
  /**
   * With no load: the job changes that refresh logged, its wall time, the job changes delivered, a second
   * (first commit to last first attempt), and the p99 from commit to first attempt.
   */
  jobChanges: number;
  manyChangesSeconds: number;
  delivered: number;
  deliveredPerSecond: number;
  commitToAttemptP99Ms: number;
}

/**
 * The receiver (bench/receiver-thread.ts, on a thread of its own at the lowest CPU priority): its URL, how
 * many first attempts it has noted, and what was delivered since the last call to `figures`: how many, a
 * second (first commit to last first attempt), and the p99 from commit to first attempt.
 */
async function startReceiver() {
  const count = new Int32Array(new SharedArrayBuffer(4));
  const thread = startWorker(import.meta.url, './receiver-thread', { count: count.buffer });
  const [listening] = (await once(thread, 'message')) as [{ port: number }];
  const figures = async () => {
    thread.postMessage('take');
    const [{ attempts }] = (await once(thread, 'message')) as [{ attempts: FirstAttempt[] }];
    const lags = attempts.map((a) => a.lagMs);
    const lastMs = Math.max(...attempts.map((a) => a.receivedMs));
    const firstCommitMs = Math.min(...attempts.map((a) => a.receivedMs - a.lagMs));
    return {
      delivered: attempts.length,
      perSecond: attempts.length / Math.max(0.001, (lastMs - firstCommitMs) / 1000),
      p99Ms: p99(lags),
      /** The delays' spread, for the log: median, 90th percentile and longest. */
      spread: [0.5, 0.9, 1].map((q) => int(quantile(lags, q))).join(' / '),
    };
  };
  return {
    url: `http://127.0.0.1:${listening.port}/hooks`,
    noted: () => Atomics.load(count, 0),
    figures,
    close: async () => {
      thread.postMessage('close');
      await once(thread, 'exit');
    },
  };
}

/**
 * Runs `measure` with an endpoint for `person.job_changed` to `url`, deleted after. A new endpoint is owed
 * only the events logged after it: those of the refresh `measure` makes.
 */
async function withEndpoint<T>(
  origin: string,
  authorization: string,
  url: string,
  measure: () => Promise<T>,
): Promise<T> {
  const created = await fetch(`${origin}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ url, types: ['person.job_changed'], description: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/webhooks: ${created.status} ${await created.text()}`);
  const { endpoint } = (await created.json()) as { endpoint: { id: string } };
  try {
    return await measure();
  } finally {
    // Without a content-type: a DELETE whose missing body is said to be JSON is refused (400).
    const removed = await fetch(`${origin}/v1/webhooks/${endpoint.id}`, {
      method: 'DELETE',
      headers: { authorization },
    });
    if (removed.status !== 204) say(`DELETE /v1/webhooks/${endpoint.id}: ${removed.status}`);
  }
}

const load = (target: Target, o: LoadOptions, duration: number): Promise<Measured> =>
  runLoad(
    {
      origin: target.server.origin,
      paths: target.paths,
      headers: target.headers,
      connections: o.connections,
      duration,
      warmup: 0,
    },
    [target.server.pid],
  );

/**
 * Notes the SQLite store `db`'s change log as it is now; the function returned resolves once an entry past
 * those is committed (polled every 10 ms through a connection of its own), or after `maxMs`.
 */
function nextCommit(db: string, maxMs: number): () => Promise<void> {
  const connection = new Database(db, { readonly: true, fileMustExist: true });
  const latest = connection.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM change_log');
  const before = latest.get()?.seq ?? 0;
  return async () => {
    const end = Date.now() + maxMs;
    try {
      while ((latest.get()?.seq ?? 0) <= before && Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      connection.close();
    }
  };
}

/** Waits until `count()` stops growing for `quietMs`, or `maxMs` passes. */
async function settle(count: () => number, quietMs: number, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  let last = -1;
  let since = Date.now();
  while (Date.now() < end) {
    const now = count();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Job changes in one refresh of the webhook row, at least (issue 21). */
const JOB_CHANGES = 10_000;

/**
 * The set evolved by as many months as it takes to log JOB_CHANGES job changes or more (about 1% of people a
 * month; at most `enrich evolve`'s 120 months for a small set), and the job changes its refresh logs.
 */
export async function evolveManyChanges(
  people: string,
  out: string,
  count: number,
): Promise<{ file: string; jobChanges: number }> {
  const file = path.join(out, path.basename(people));
  const expected = path.join(out, 'expected-changes.ndjson');
  if (!existsSync(expected)) {
    const months = Math.min(120, Math.ceil(JOB_CHANGES / (count * 0.0095)));
    say(`data set: evolving ${months} months for the webhook row's job changes`);
    await evolve(path.dirname(people), out, count, months);
  }
  let jobChanges = 0;
  const lines = createInterface({ input: createReadStream(expected), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line.includes('"type":"person.job_changed"')) jobChanges++;
  return { file, jobChanges };
}

/** The refreshes of a webhook row: a month's, and one with ten thousand job changes or more. */
export interface DuringFiles {
  original: string;
  /** The set a month on (about 2% of people changed). */
  evolved: string;
  /** The set months on, and the job changes its refresh logs. */
  manyChanges: string;
  jobChanges: number;
  people: number;
}

/**
 * Per run: `id` alone; `id` while `enrich import people EVOLVED --snapshot` runs in another process; then the
 * refresh with many job changes, twice, once with no endpoint and once with an endpoint for its job changes
 * (in turn first), `id` measured during each; then once more with the endpoint and no lookups, for the
 * deliveries' own rate and delay. Each refresh is followed by one back to the original, its
 * deliveries over and no endpoint left, so the store ends as it began. The server must allow private webhook addresses.
 */
export async function measureDuring(
  idTarget: Target,
  db: string,
  files: DuringFiles,
  o: LoadOptions,
): Promise<DuringRun[]> {
  const token = await createKey(db, 'webhook benchmark', 1_000_000, {}, ['changes:read', 'changes:write']);
  const receiver = await startReceiver();
  const origin = idTarget.server.origin;
  const authorization = `Bearer ${token}`;
  // The load runs while the refresh does, ended before it (and before it is back). A month's refresh: 3 s
  // from half a second in. One with many job changes: 5 s from its first commit to the change log, when its
  // deliveries (if it has an endpoint) begin; what comes before (reading the files, the guard's count)
  // delivers nothing, and would dilute what deliveries cost.
  const window = (seconds: number) => Math.max(1, Math.min(o.duration, seconds));
  const during = async (file: string, fromFirstCommit = false) => {
    const firstCommit = fromFirstCommit ? nextCommit(db, 60_000) : undefined;
    const refreshing = refreshSnapshot('people', file, db, files.people);
    await (firstCommit?.() ?? new Promise((resolve) => setTimeout(resolve, 500)));
    const measured = await load(idTarget, o, window(firstCommit ? 5 : 3));
    return { rps: measured.rps, refreshed: await refreshing };
  };
  const back = () => refreshSnapshot('people', files.original, db, files.people);
  const runs: DuringRun[] = [];
  try {
    for (let run = 1; run <= o.runs; run++) {
      const alone = await load(idTarget, o, o.duration);
      const month = await during(files.evolved);
      await back();
      const without = () => during(files.manyChanges, true).finally(back);
      // An endpoint for the refresh's job changes: with the load (what it costs the lookups), or alone (how
      // fast they go out).
      const withDeliveries = (loaded: boolean) =>
        withEndpoint(origin, authorization, receiver.url, async () => {
          const measured = loaded
            ? await during(files.manyChanges, true)
            : { rps: 0, refreshed: await refreshSnapshot('people', files.manyChanges, db, files.people) };
          await settle(receiver.noted, 2000, 120_000);
          return { ...measured, ...(await receiver.figures()) };
        }).finally(back);
      // In turn first, so that neither always has the machine as the other left it.
      const [plain, delivering] =
        run % 2 === 1
          ? [await without(), await withDeliveries(true)]
          : await withDeliveries(true).then(async (d) => [await without(), d] as const);
      const unloaded = await withDeliveries(false);
      const result: DuringRun = {
        alone: alone.rps,
        duringRefresh: month.rps,
        changed: month.refreshed.changed,
        refreshSeconds: month.refreshed.wallSeconds,
        duringManyChanges: plain.rps,
        duringDeliveries: delivering.rps,
        deliveredUnderLoad: delivering.delivered,
        commitToAttemptP99UnderLoadMs: delivering.p99Ms,
        jobChanges: files.jobChanges,
        manyChangesSeconds: unloaded.refreshed.wallSeconds,
        delivered: unloaded.delivered,
        deliveredPerSecond: unloaded.perSecond,
        commitToAttemptP99Ms: unloaded.p99Ms,
      };
      say(
        `during ${run}/${o.runs}: id ${int(result.alone)}/s alone, ${int(result.duringRefresh)}/s during a ` +
          `month's refresh; during a refresh of ${int(result.jobChanges)} job changes, ` +
          `${int(result.duringManyChanges)}/s with no endpoint and ${int(result.duringDeliveries)}/s while they ` +
          `were delivered (${int(delivering.delivered)}, p99 commit to attempt ${int(delivering.p99Ms)} ms); ` +
          `with no lookups, the refresh took ${unloaded.refreshed.wallSeconds.toFixed(1)} s and ` +
          `${int(result.delivered)} were delivered at ${int(result.deliveredPerSecond)}/s, p99 commit to attempt ` +
          `${int(result.commitToAttemptP99Ms)} ms (p50 / p90 / longest ${unloaded.spread} ms)`,
      );
      runs.push(result);
    }
  } finally {
    await receiver.close();
  }
  return runs;
}

/** The rows: per run, and the medians with the targets of issues 20 and 21. */
export function duringTable(runs: DuringRun[]): string {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const rows = runs.map((r, i) => [
    `run ${i + 1}`,
    int(r.alone),
    `${int(r.duringRefresh)} (${ratio(r.duringRefresh, r.alone)})`,
    int(r.duringManyChanges),
    `${int(r.duringDeliveries)} (${ratio(r.duringDeliveries, r.duringManyChanges)})`,
    `${int(r.delivered)} of ${int(r.jobChanges)} at ${int(r.deliveredPerSecond)}/s`,
    `${int(r.commitToAttemptP99Ms)} ms`,
    `${int(r.commitToAttemptP99UnderLoadMs)} ms`,
  ]);
  const m = (pick: (r: DuringRun) => number) => median(runs.map(pick));
  rows.push([
    'median',
    int(m((r) => r.alone)),
    `${int(m((r) => r.duringRefresh))} (${ratio(
      m((r) => r.duringRefresh),
      m((r) => r.alone),
    )}, target ≥ 0.80×)`,
    int(m((r) => r.duringManyChanges)),
    `${int(m((r) => r.duringDeliveries))} (${ratio(
      m((r) => r.duringDeliveries),
      m((r) => r.duringManyChanges),
    )}, target ≥ 0.95×)`,
    `${int(m((r) => r.delivered))} of ${int(m((r) => r.jobChanges))} at ${int(
      m((r) => r.deliveredPerSecond),
    )}/s (target ≥ 1,000/s)`,
    `${int(m((r) => r.commitToAttemptP99Ms))} ms (target ≤ 2,000 ms)`,
    `${int(m((r) => r.commitToAttemptP99UnderLoadMs))} ms`,
  ]);
  const header = [
    'id lookups/s',
    'alone',
    "during a month's refresh",
    'during a refresh of many job changes, no endpoint',
    'the same, its job changes delivered',
    'job changes delivered, no lookups',
    'p99 commit → first attempt, no lookups',
    'p99 commit → first attempt, lookups at full rate',
  ];
  return table(header, rows, [1, 2, 3, 4, 5, 6, 7]);
}
