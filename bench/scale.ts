// npm run bench:scale: import time and lookup rate at full scale (10M people, 1.5M companies) beside a 100k baseline.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type DataFiles, isCached, obtainDataset, obtainNextMonth } from './data-files.js';
import { COMPANY_LOOKUPS, PERSON_LOOKUPS, sampleLookups } from './dataset.js';
import { loadStore, type RunningEnrich, refreshSnapshot, type Sizes, serve } from './enrich.js';
import { say } from './log.js';
import { enrichTargets, measureRounds, type Target } from './lookups.js';
import { parseScaleOptions, SCALE_USAGE, type ScaleOptions } from './options.js';
import { renderScaleReport, type ScaleSide } from './scale-report.js';
import { runScript } from './session.js';
import { freeDiskBytes, treePeakRssBytes, treeRss } from './system.js';

const KINDS = [...PERSON_LOOKUPS, ...COMPANY_LOOKUPS];
/**
 * Disk per record: its SQLite row and index entries, and its serving-index entry (100,000 people and
 * 15,000 companies took 304 MB of SQLite and 352 MB of index here), and the gzip NDJSON to generate.
 */
const STORE_BYTES = { person: 5_400, company: 8_600 };
const GZIP_BYTES = { person: 420, company: 620 };

function checkDisk(o: ScaleOptions, dir: string, cached: boolean): void {
  const people = o.people + o.baselinePeople;
  const companies = o.companies + Math.round(o.baselinePeople * 0.15);
  // The data set unless cached, and its next month's people for the refresh row.
  const data =
    (cached ? 0 : people * GZIP_BYTES.person + companies * GZIP_BYTES.company) + people * GZIP_BYTES.person;
  const needed = 1.05 * (people * STORE_BYTES.person + companies * STORE_BYTES.company + data);
  const free = freeDiskBytes(dir);
  if (free < needed) {
    const gb = (n: number) => `${(n / 1e9).toFixed(0)} GB`;
    throw new Error(
      `about ${gb(needed)} of disk is needed in ${dir}, ${gb(free)} is free (try --data-cache DIR)`,
    );
  }
}

/** Every sampled path of a target requested once, a few at a time: what it reads, in the page cache. */
async function warmSample(target: Target): Promise<void> {
  const started = performance.now();
  let next = 0;
  const requester = async () => {
    while (next < target.paths.length) {
      const response = await fetch(`${target.server.origin}${target.paths[next++]}`, {
        headers: target.headers,
      });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, requester));
  say(
    `${target.name}: ${target.paths.length} sampled paths read once in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

interface Loaded {
  side: Omit<ScaleSide, 'lookups' | 'peakRssBytes' | 'rss' | 'refresh'>;
  files: DataFiles;
  db: string;
  token: string;
}

async function prepare(
  sizes: Sizes,
  work: string,
  cache: string | undefined,
  label: string,
): Promise<Loaded> {
  const started = performance.now();
  // Compressed: the full data set's NDJSON would not fit beside its store and index on a 74 GB disk.
  const files = await obtainDataset(sizes, work, cache, true);
  const dataSeconds = (performance.now() - started) / 1000;
  const db = path.join(work, `${label}.db`);
  say(
    `${label}: importing ${sizes.people.toLocaleString('en')} people, ${sizes.companies.toLocaleString('en')} companies`,
  );
  const store = await loadStore(files, sizes, db);
  say(`${label}: imported in ${(store.people.seconds + store.companies.seconds).toFixed(0)} s`);
  return {
    side: { sizes, dataSeconds, people: store.people, companies: store.companies },
    files,
    db,
    token: store.token,
  };
}

runScript('bench:scale', parseScaleOptions, SCALE_USAGE, async (session) => {
  const { options: o, work } = session;
  if (o.dataCache) mkdirSync(o.dataCache, { recursive: true });
  const cached =
    o.dataCache !== undefined &&
    isCached(o.dataCache, { people: o.people, companies: o.companies, seed: o.seed }, true);
  checkDisk(o, o.dataCache ?? work, cached);
  const baselineSizes = {
    people: o.baselinePeople,
    companies: Math.round(o.baselinePeople * 0.15),
    seed: o.seed,
  };
  const baseline = await prepare(baselineSizes, work, o.dataCache, 'baseline');
  const full = await prepare(
    { people: o.people, companies: o.companies, seed: o.seed },
    work,
    o.dataCache,
    'full',
  );
  // Both servers up at once, their runs interleaved round by round, so drift touches both alike.
  const servers: RunningEnrich[] = [];
  const targets: Target[] = [];
  for (const [label, loaded] of [
    ['baseline', baseline],
    ['full', full],
  ] as const) {
    const sample = await sampleLookups(loaded.files, o.sample, o.seed);
    const enrich = await serve(loaded.db, { workers: o.workers });
    servers.push(enrich);
    const server = { origin: enrich.origin, pid: enrich.child.pid };
    for (const target of enrichTargets(server, loaded.token, sample, KINDS)) {
      targets.push({ ...target, name: `${label} ${target.name}` });
    }
  }
  // Just after an import of tens of gigabytes its records are on disk, not in the page cache: the first
  // kind measured ran at the disk's random-read rate (107 id lookups/s at 3,000,000 people, warm-up and all).
  for (const target of targets) await warmSample(target);
  const results = await measureRounds(targets, o);
  const side = (loaded: Loaded, label: string, enrich: RunningEnrich) => ({
    ...loaded.side,
    lookups: new Map(KINDS.map((kind) => [kind, results.get(`${label} ${kind}`) ?? []])),
    peakRssBytes: treePeakRssBytes(enrich.child.pid),
    rss: treeRss(enrich.child.pid),
  });
  const sides = [side(baseline, 'baseline', servers[0]!), side(full, 'full', servers[1]!)] as const;
  // Then each store refreshed to the set's next month (--snapshot), its server up and idle, as a user would.
  const refreshed: ScaleSide[] = [];
  for (const [label, loaded, measured] of [
    ['baseline', baseline, sides[0]],
    ['full', full, sides[1]],
  ] as const) {
    const { sizes } = loaded.side;
    const nextMonth = await obtainNextMonth(loaded.files, sizes, work, o.dataCache, true);
    say(`${label}: refreshing ${sizes.people.toLocaleString('en')} people to the next month`);
    const refresh = await refreshSnapshot('people', nextMonth, loaded.db, sizes.people);
    say(`${label}: refreshed in ${refresh.wallSeconds.toFixed(0)} s, ${refresh.changed} changed`);
    refreshed.push({ ...measured, refresh });
  }
  return renderScaleReport({ ...session, baseline: refreshed[0]!, full: refreshed[1]! });
});
