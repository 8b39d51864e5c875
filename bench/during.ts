// Lookups while the store changes (issues 20 and 21): `id` lookups during a snapshot refresh, and during the
// webhook deliveries a refresh causes, each against `id` lookups measured alone just before, in the same run.
// The webhook row also gives the delivery rate to a receiver on this machine and the p99 from an event's
// commit (its `timestamp`) to its first attempt.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, refreshSnapshot } from './enrich.js';
import { int, table } from './format.js';
import { type Measured, runLoad } from './loadgen.js';
import { say } from './log.js';
import type { Target } from './lookups.js';
import type { LoadOptions } from './options.js';
import { median, p99 } from './stats.js';

export interface DuringRun {
  /** `id` lookups a second alone, then during the refresh, then while deliveries run. */
  alone: number;
  duringRefresh: number;
  duringDeliveries: number;
  /** The refresh: records changed, and its wall time. */
  changed: number;
  refreshSeconds: number;
  /** Webhook deliveries of that refresh's events: how many, a second, and commit to first attempt. */
  delivered: number;
  deliveredPerSecond: number;
  commitToAttemptP99Ms: number;
}

/** A receiver that answers 204 and notes, per event, when its first attempt arrived after its commit. */
async function startReceiver() {
  const firstAttempt = new Map<string, { receivedMs: number; lagMs: number }>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      if (!firstAttempt.has(id)) {
        const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
        firstAttempt.set(id, { receivedMs: Date.now(), lagMs: Date.now() - Date.parse(timestamp) });
      }
      response.statusCode = 204;
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, firstAttempt, close: () => server.close() };
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

/**
 * Per run: `id` alone; `id` while `enrich import people EVOLVED --snapshot` runs in another process; then,
 * with an endpoint for every event type registered, the refresh back to the original file and `id` while
 * its events are delivered. The store ends as it began. The server must allow private webhook addresses.
 */
export async function measureDuring(
  idTarget: Target,
  db: string,
  files: { original: string; evolved: string; people: number },
  o: LoadOptions,
): Promise<DuringRun[]> {
  const token = await createKey(db, 'webhook benchmark', 1_000_000, {}, ['changes:read', 'changes:write']);
  const receiver = await startReceiver();
  const origin = idTarget.server.origin;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const types = [
    'person.created',
    'person.updated',
    'person.removed',
    'person.job_changed',
    'person.title_changed',
  ];
  const created = await fetch(`${origin}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: receiver.url, types, description: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/webhooks: ${created.status} ${await created.text()}`);
  const { endpoint } = (await created.json()) as { endpoint: { id: string } };
  const runs: DuringRun[] = [];
  try {
    for (let run = 1; run <= o.runs; run++) {
      const alone = await load(idTarget, o, o.duration);
      // The refresh takes some seconds: the load runs while it does (started just after it, ended before).
      const refreshing = refreshSnapshot('people', files.evolved, db, files.people);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const duringRefresh = await load(idTarget, o, Math.max(1, Math.min(o.duration, 3)));
      const forward = await refreshing;
      await settle(() => receiver.firstAttempt.size, 2000, 120_000);
      receiver.firstAttempt.clear();
      // Back to the original: its events are delivered while lookups run.
      const back = refreshSnapshot('people', files.original, db, files.people);
      await back;
      const started = Date.now();
      const duringDeliveries = await load(idTarget, o, Math.max(1, Math.min(o.duration, 3)));
      const loadEnded = Date.now();
      await settle(() => receiver.firstAttempt.size, 2000, 120_000);
      const attempts = [...receiver.firstAttempt.values()];
      const lastMs = Math.max(...attempts.map((a) => a.receivedMs));
      const firstCommitMs = Math.min(...attempts.map((a) => a.receivedMs - a.lagMs));
      const result: DuringRun = {
        alone: alone.rps,
        duringRefresh: duringRefresh.rps,
        duringDeliveries: duringDeliveries.rps,
        changed: forward.changed,
        refreshSeconds: forward.wallSeconds,
        delivered: attempts.length,
        deliveredPerSecond: attempts.length / Math.max(0.001, (lastMs - firstCommitMs) / 1000),
        commitToAttemptP99Ms: p99(attempts.map((a) => a.lagMs)),
      };
      say(
        `during ${run}/${o.runs}: id ${int(result.alone)}/s alone, ${int(result.duringRefresh)}/s during a refresh, ` +
          `${int(result.duringDeliveries)}/s during deliveries (which ended ${((lastMs - started) / 1000).toFixed(1)} s ` +
          `after the load began, ${lastMs > loadEnded ? 'after' : 'before'} it ended); ` +
          `${int(result.delivered)} events delivered at ${int(result.deliveredPerSecond)}/s, p99 commit to attempt ` +
          `${int(result.commitToAttemptP99Ms)} ms`,
      );
      receiver.firstAttempt.clear();
      runs.push(result);
    }
  } finally {
    receiver.close();
    // Without a content-type: a DELETE whose missing body is said to be JSON is refused (400).
    const { authorization } = headers;
    const removed = await fetch(`${origin}/v1/webhooks/${endpoint.id}`, {
      method: 'DELETE',
      headers: { authorization },
    });
    if (removed.status !== 204) say(`DELETE /v1/webhooks/${endpoint.id}: ${removed.status}`);
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
    `${int(r.duringDeliveries)} (${ratio(r.duringDeliveries, r.alone)})`,
    `${int(r.delivered)} at ${int(r.deliveredPerSecond)}/s`,
    `${int(r.commitToAttemptP99Ms)} ms`,
  ]);
  const m = (pick: (r: DuringRun) => number) => median(runs.map(pick));
  rows.push([
    'median',
    int(m((r) => r.alone)),
    `${int(m((r) => r.duringRefresh))} (${ratio(
      m((r) => r.duringRefresh),
      m((r) => r.alone),
    )}, target ≥ 0.80×)`,
    `${int(m((r) => r.duringDeliveries))} (${ratio(
      m((r) => r.duringDeliveries),
      m((r) => r.alone),
    )}, target ≥ 0.95×)`,
    `${int(m((r) => r.delivered))} at ${int(m((r) => r.deliveredPerSecond))}/s (target ≥ 1,000/s)`,
    `${int(m((r) => r.commitToAttemptP99Ms))} ms (target ≤ 2,000 ms)`,
  ]);
  const header = [
    'id lookups/s',
    'alone',
    'during a refresh',
    'during deliveries',
    'webhook events delivered',
    'p99 commit → first attempt',
  ];
  return table(header, rows, [1, 2, 3, 4, 5]);
}
