// The server's peak RSS (VmHWM) after serving every kind of lookup, for a store of a given number of people.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { obtainDataset } from './data-files.js';
import { COMPANY_LOOKUPS, PERSON_LOOKUPS, sampleLookups } from './dataset.js';
import { loadStore, serve } from './enrich.js';
import { say } from './log.js';
import { enrichTargets, measureRounds } from './lookups.js';
import type { LoadOptions } from './options.js';
import { medianOf } from './stats.js';
import { processTree, type RssParts, treePeakRssBytes, treeRss } from './system.js';

export interface MemoryFigure {
  people: number;
  companies: number;
  /** Summed over the server's processes (a primary and its workers when clustered). */
  peakRssBytes: number;
  /** RssAnon and RssFile after the load, summed over the server's processes. */
  rss: RssParts;
  processes: number;
  /** By-products of getting there: import rate (from process start) and the id lookup rate at this size. */
  importPeoplePerSecond: number;
  /** The people's import: seconds as the command printed them (timed after its start-up), and from process start. */
  importPeopleSeconds: number;
  importPeopleWallSeconds: number;
  /** The larger of the two imports' peak RSS (people, companies). */
  importPeakRssBytes: number;
  idRps: number;
}

/** Seconds of load per lookup kind: enough to touch the sampled records several times over. */
const MEMORY_LOAD_SECONDS = 5;

/**
 * Generates (or reuses) a data set of `people` and 15% as many companies, imports it, serves it, runs every
 * kind of lookup, and reads the server's VmHWM. Removes what it made, except a cached data set.
 */
export async function measurePeakRss(
  people: number,
  seed: number,
  workDir: string,
  load: LoadOptions,
  cacheDir?: string,
): Promise<MemoryFigure> {
  const sizes = { people, companies: Math.max(1, Math.round(people * 0.15)), seed };
  const files = await obtainDataset(sizes, workDir, cacheDir);
  const db = path.join(workDir, `memory-${people}.db`);
  try {
    say(`memory at ${people.toLocaleString('en')} people: importing`);
    const store = await loadStore(files, sizes, db);
    const sample = await sampleLookups(files, 2000, seed);
    const enrich = await serve(db, { workers: load.workers });
    try {
      const server = { origin: enrich.origin, pid: enrich.child.pid };
      const kinds = [...PERSON_LOOKUPS, ...COMPANY_LOOKUPS];
      const short = { ...load, runs: 1, duration: Math.min(load.duration, MEMORY_LOAD_SECONDS) };
      const results = await measureRounds(enrichTargets(server, store.token, sample, kinds), short);
      const figure: MemoryFigure = {
        ...sizes,
        peakRssBytes: treePeakRssBytes(enrich.child.pid),
        rss: treeRss(enrich.child.pid),
        processes: processTree(enrich.child.pid).length,
        importPeoplePerSecond: store.people.wallPerSecond,
        // From the printed rate, which has more digits than the printed seconds.
        importPeopleSeconds: store.people.records / store.people.perSecond,
        importPeopleWallSeconds: store.people.wallSeconds,
        importPeakRssBytes: Math.max(store.people.peakRssBytes, store.companies.peakRssBytes),
        idRps: medianOf(results.get('id') ?? [], (m) => m.rps),
      };
      say(
        `memory at ${people.toLocaleString('en')} people: peak RSS ${(figure.peakRssBytes / 2 ** 20).toFixed(0)} MiB, ` +
          `RssAnon ${(figure.rss.anonBytes / 2 ** 20).toFixed(0)} MiB, RssFile ${(figure.rss.fileBytes / 2 ** 20).toFixed(0)} MiB`,
      );
      return figure;
    } finally {
      await enrich.child.stop();
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-index', '-index-lock', '-accounting']) {
      rmSync(`${db}${suffix}`, { force: true, recursive: true });
    }
    if (!cacheDir) rmSync(path.dirname(files.people), { recursive: true, force: true });
  }
}
