// npm run bench:search: the people searches alone, against stores already imported (say, a million people
// imported once into SQLite and PostgreSQL), so that they can be measured again without importing again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchKey, serve, serveFromLocalIndex } from './enrich.js';
import { entryHeading, int } from './format.js';
import { loadGeneratorName } from './loadgen.js';
import { say } from './log.js';
import type { LoadOptions } from './options.js';
import { measureSearches, type SearchRow, sampleSearches, searchTable, searchTargets } from './searches.js';
import { runScript } from './session.js';

interface SearchBenchOptions extends LoadOptions {
  db?: string;
  postgres?: string;
  localDir?: string;
  people: string;
  sample: number;
  seed: number;
  rev?: string;
  skipBuild: boolean;
  out?: string;
}

const USAGE = `npm run bench:search -- --people FILE [--db FILE] [--postgres URL] [options]
  --people FILE      the data set's people file (NDJSON, gzip or not): searches are drawn from its records
  --db FILE          a SQLite store holding that data set (imported with enrich import)
  --postgres URL     a PostgreSQL database holding it (migrated and imported); at least one of the two
  --local-dir DIR    the PostgreSQL server's local index (ENRICH_LOCAL_DIR; default: a new temporary one);
                     measured once it is in service (at a million people, a new one takes minutes to build)
  --sample N         people to draw searches from (default 2000); --seed S (default 1)
  --duration S (10), --warmup S (2), --runs R (3), --connections C (50), --workers N (1), --wait-quiet S (0)
  --rev REV, --skip-build, --out FILE (default: print only) as for npm run bench
A benchmark key is added to each store.`;

function count(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new Error(`--${name}: expected a whole number ≥ ${min}`);
  return Number(value);
}

function parseOptions(argv: string[]): SearchBenchOptions {
  const string = { type: 'string' } as const;
  const { values: v } = parseArgs({
    args: argv,
    options: {
      db: string,
      postgres: string,
      'local-dir': string,
      people: string,
      sample: string,
      seed: string,
      duration: string,
      warmup: string,
      runs: string,
      connections: string,
      workers: string,
      'wait-quiet': string,
      rev: string,
      out: string,
      'skip-build': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (!v.people) throw new Error('--people: the data set is needed to draw searches from');
  if (!v.db && !v.postgres) throw new Error('give --db, --postgres or both');
  return {
    db: v.db,
    postgres: v.postgres,
    localDir: v['local-dir'],
    people: v.people,
    sample: count('sample', v.sample, 2000),
    seed: count('seed', v.seed, 1, 0),
    duration: count('duration', v.duration, 10),
    warmup: count('warmup', v.warmup, 2, 0),
    runs: count('runs', v.runs, 3),
    connections: count('connections', v.connections, 50),
    workers: count('workers', v.workers, 1),
    waitQuiet: count('wait-quiet', v['wait-quiet'], 0, 0),
    rev: v.rev,
    skipBuild: v['skip-build'],
    out: v.out,
  };
}

runScript('bench:search', parseOptions, USAGE, async (session) => {
  const o = session.options;
  const paths = await sampleSearches(o.people, o.sample, o.seed);
  const stores: Array<{ db: string; env: NodeJS.ProcessEnv; backend: SearchRow['backend'] }> = [];
  if (o.db) stores.push({ db: o.db, env: {}, backend: 'SQLite' });
  const scratch =
    o.postgres && !o.localDir ? mkdtempSync(path.join(tmpdir(), 'enrich-search-local-')) : undefined;
  if (o.postgres) {
    const env = { DATABASE_URL: o.postgres, ENRICH_LOCAL_DIR: o.localDir ?? scratch };
    stores.push({ db: '', env, backend: 'PostgreSQL' });
  }
  const rows: SearchRow[] = [];
  for (const store of stores) {
    const token = await createBenchKey(store.db, store.env);
    const opts = { workers: o.workers, env: store.env };
    const running = await (store.backend === 'PostgreSQL'
      ? serveFromLocalIndex(opts)
      : serve(store.db, opts));
    try {
      const server = { origin: running.origin, pid: running.child.pid };
      rows.push(...(await measureSearches(searchTargets(server, token, paths, store.backend), o)));
    } finally {
      await running.child.stop();
    }
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  say('done');
  const settings =
    `Searches drawn from ${int(o.sample)} people of ${o.people}; ${o.runs} run(s) at the maximum rate, medians ` +
    `quoted, then as many at 80% of it; ${o.duration} s per run after ${o.warmup} s of warm-up; ${o.connections} ` +
    `connections; ${loadGeneratorName()}; ${o.workers} server process(es)` +
    `${o.postgres ? ', the PostgreSQL one measured once its local index was in service' : ''}. Load average when the run started: ` +
    `${session.loadAverage.map((n) => n.toFixed(2)).join(', ')}.`;
  return [
    entryHeading(session.date, session.command, session.machine, session.built),
    '',
    settings,
    '',
    searchTable(rows),
  ].join('\n');
});
