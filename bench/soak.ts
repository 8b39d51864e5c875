// npm run soak: minutes of mixed requests at 80% of the measured maximum rate against `enrich serve` on every
// core, recording per minute the requests, p99, statuses, unexpected errors and the server's memory.
import { statSync } from 'node:fs';
import path from 'node:path';
import { mintToken } from '../src/auth/tokens.js';
import { obtainDataset } from './data-files.js';
import { createKey, loadStore, serve } from './enrich.js';
import { say } from './log.js';
import { runScript } from './session.js';
import { type MixLoad, prepareMix, runMix, type Segment } from './soak-load.js';
import { drawPool, LIMITED_RATE, MIX, mixRequests } from './soak-mix.js';
import { parseSoakOptions, SOAK_USAGE } from './soak-options.js';
import { type Minute, renderSoakReport } from './soak-report.js';
import { machineBusySeconds, type RssParts, treeCpuSeconds, treeRss } from './system.js';
import { connectionsFor } from './wrk.js';

const MINUTE_SECONDS = 60;
const RSS_EVERY_MS = 5000;
/** Requests in the list wrk cycles through: long enough that the mix holds over any second. */
const LISTED_REQUESTS = 50_000;

/** Responses a class should not have had (an unknown class counts wholly), and which they were. */
export function unexpectedOf(segment: Segment): { count: number; which: Map<string, number> } {
  const which = new Map<string, number>();
  let count = 0;
  for (const [name, byStatus] of segment.statuses) {
    const expected = MIX.find((c) => c.name === name)?.expected ?? [];
    for (const [status, n] of byStatus) {
      if (expected.includes(status)) continue;
      count += n;
      which.set(`${name} ${status}`, (which.get(`${name} ${status}`) ?? 0) + n);
    }
  }
  return { count, which };
}

/** A file's size, 0 when it is not there. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

interface Pace {
  rate: number;
  connections: number;
}

/** One minute of the mix at the soak rate, with the server tree's RSS sampled every 5 s. */
async function soakMinute(load: MixLoad, pace: Pace, server: number, db: string, n: number) {
  const samples: RssParts[] = [];
  const sampler = setInterval(() => samples.push(treeRss(server)), RSS_EVERY_MS);
  const cpuBefore = treeCpuSeconds(server);
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const segment = await runMix(load, MINUTE_SECONDS, pace.connections, pace.rate).finally(() =>
    clearInterval(sampler),
  );
  const wall = (performance.now() - started) / 1000;
  const serverCpu = treeCpuSeconds(server) - cpuBefore;
  const otherCpu = machineBusySeconds() - machineBefore - serverCpu - segment.loadCpuSeconds;
  const unexpected = unexpectedOf(segment);
  const minute: Minute = {
    minute: n,
    segment,
    unexpected: unexpected.count,
    unexpectedWhich: unexpected.which,
    rss: treeRss(server),
    peakRss: samples.reduce((max, s) => Math.max(max, s.anonBytes + s.fileBytes), 0),
    dbBytes: sizeOf(db),
    walBytes: sizeOf(`${db}-wal`),
    serverCores: serverCpu / segment.seconds,
    loadCores: segment.loadCpuSeconds / segment.seconds,
    otherCores: Math.max(0, otherCpu) / wall,
  };
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  say(
    `minute ${n}: ${Math.round(segment.perSecond)} req/s, p99 ${segment.p99Ms.toFixed(2)} ms, ` +
      `${minute.unexpected + segment.socketErrors} unexpected, RssAnon ${mib(minute.rss.anonBytes)}, ` +
      `RssFile ${mib(minute.rss.fileBytes)}, other cores ${minute.otherCores.toFixed(2)}`,
  );
  return minute;
}

runScript('soak', parseSoakOptions, SOAK_USAGE, async (session) => {
  const { options: o, work } = session;
  const sizes = { people: o.people, companies: o.companies, seed: o.seed };
  const files = await obtainDataset(sizes, work, o.dataCache);
  say(`requests: drawing ${o.sample} people and ${o.sample} companies, finding shared inboxes`);
  const pool = await drawPool(files, o.sample, o.seed);
  const db = path.join(work, 'soak.db');
  say('import');
  const store = await loadStore(files, sizes, db);
  const tokens = {
    main: store.token,
    limited: await createKey(db, 'over its rate', LIMITED_RATE),
    unknown: mintToken(),
  };
  const server = await serve(db, { workers: o.workers });
  try {
    const requests = mixRequests(pool, LISTED_REQUESTS, o.seed);
    const load = prepareMix(work, server.origin, tokens, requests);
    say(`maximum rate: ${o.maxSeconds} s flat out over ${o.connections} connections`);
    const max = await runMix(load, o.maxSeconds, o.connections, 0);
    const target = Math.round((max.perSecond * o.share) / 100);
    const pace = { rate: target, connections: connectionsFor(target, o.connections) };
    say(`maximum ${Math.round(max.perSecond)} req/s; soak: ${o.minutes} minute(s) at ${target} req/s`);
    const minutes: Minute[] = [];
    for (let n = 1; n <= o.minutes; n++) minutes.push(await soakMinute(load, pace, server.child.pid, db, n));
    return renderSoakReport({
      ...session,
      sizes,
      pool,
      max,
      maxUnexpected: unexpectedOf(max).count + max.socketErrors,
      target,
      connections: pace.connections,
      minutes,
    });
  } finally {
    await server.child.stop(30_000);
  }
});
