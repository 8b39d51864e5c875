// Import throughput, each run into a fresh store, beside the floor of reading and parsing the same files.
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DataFiles } from './data-files.js';
import { type ImportSummary, importFile, migrate, refreshSnapshot, type Sizes } from './enrich.js';
import { type Floor, readAndParse } from './lines.js';
import { say } from './log.js';
import { createScratchDatabase, type ScratchDatabase } from './postgres.js';

export interface ImportRun {
  people: ImportSummary;
  companies: ImportSummary;
  peopleFloor: Floor;
  companiesFloor: Floor;
  /** What the store held on disk once both imports had finished, beside the NDJSON they read. */
  disk: StoreDisk;
  /**
   * Snapshot refreshes of the same store's people (`import --snapshot`): to the evolved month (about 2%
   * changed), then back to the first set (the same changes undone), which leaves the store as imported.
   */
  refresh?: { forward: RefreshSummary; back: RefreshSummary };
}

export type RefreshSummary = ImportSummary & { changed: number };

/** Issue 24's disk figure: the store, SQLite file and serving index together, and the NDJSON it was imported from. */
export interface StoreDisk {
  /** The SQLite file and its WAL, as allocated on disk. */
  sqliteBytes: number;
  /** The serving index (LMDB) file, as allocated on disk: its file is sparse up to the map size. */
  indexBytes: number;
  ndjsonBytes: number;
}

/** Bytes a file occupies on disk (its allocated blocks, as `du` counts them); 0 when it is absent. */
const allocatedBytes = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? stat.blocks * 512 : 0;
};

export const storeDisk = (db: string, files: DataFiles): StoreDisk => ({
  sqliteBytes: allocatedBytes(db) + allocatedBytes(`${db}-wal`),
  indexBytes: allocatedBytes(`${db}-index`),
  ndjsonBytes: statSync(files.people).size + statSync(files.companies).size,
});

export interface ImportRuns {
  runs: ImportRun[];
  /** The store the last run left, kept for the lookup benchmark. */
  db: string;
}

const removeStore = (db: string) => {
  for (const suffix of ['', '-wal', '-shm', '-index', '-index-lock'])
    rmSync(`${db}${suffix}`, { force: true });
};

/** `runs` imports of people then companies, each into a new SQLite file, each followed by its floor. */
export async function measureImports(
  files: DataFiles,
  sizes: Sizes,
  dir: string,
  runs: number,
  evolved?: DataFiles,
): Promise<ImportRuns> {
  const results: ImportRun[] = [];
  let db = '';
  for (let run = 1; run <= runs; run++) {
    if (db) removeStore(db);
    db = path.join(dir, `import-${run}.db`);
    const people = await importFile('people', files.people, db, sizes.people);
    const peopleFloor = await readAndParse(files.people);
    const companies = await importFile('companies', files.companies, db, sizes.companies);
    const companiesFloor = await readAndParse(files.companies);
    const disk = storeDisk(db, files);
    const refresh = evolved && {
      forward: await refreshSnapshot('people', evolved.people, db, sizes.people),
      back: await refreshSnapshot('people', files.people, db, sizes.people),
    };
    results.push({ people, companies, peopleFloor, companiesFloor, disk, ...(refresh ? { refresh } : {}) });
    say(
      `import run ${run}/${runs}: ${Math.round(people.wallPerSecond)} people/s from process start ` +
        `(printed ${people.perSecond}/s; floor ${Math.round(peopleFloor.perSecond)}/s), ` +
        `${Math.round(companies.wallPerSecond)} companies/s (printed ${companies.perSecond}/s)` +
        (refresh
          ? `; snapshot refresh ${refresh.forward.wallSeconds.toFixed(1)} s (${refresh.forward.changed} changed), ` +
            `back ${refresh.back.wallSeconds.toFixed(1)} s`
          : ''),
    );
  }
  return { runs: results, db };
}

/** A PostgreSQL import run: people, the same people again over themselves (as a refresh does), companies. */
export interface PostgresImportRun {
  people: ImportSummary;
  peopleAgain: ImportSummary;
  companies: ImportSummary;
}

export interface PostgresImports {
  runs: PostgresImportRun[];
  /** The database the last run filled, kept for the lookup benchmark; the caller drops it. */
  database: ScratchDatabase;
}

/**
 * `runs` imports into PostgreSQL (`COPY`), each into a new scratch database: people, the same people again
 * (every record replaced, its identifiers with it), then companies.
 */
export async function measurePostgresImports(
  files: DataFiles,
  sizes: Sizes,
  serverUrl: string,
  runs: number,
): Promise<PostgresImports> {
  const results: PostgresImports['runs'] = [];
  let database: ScratchDatabase | undefined;
  try {
    for (let run = 1; run <= runs; run++) {
      await database?.drop();
      database = await createScratchDatabase(serverUrl);
      await migrate(database.url);
      const env = { DATABASE_URL: database.url };
      const people = await importFile('people', files.people, '', sizes.people, env);
      const peopleAgain = await importFile('people', files.people, '', sizes.people, env);
      const companies = await importFile('companies', files.companies, '', sizes.companies, env);
      results.push({ people, peopleAgain, companies });
      const rate = (s: ImportSummary) => `${Math.round(s.wallPerSecond)}/s (printed ${s.perSecond}/s)`;
      say(
        `PostgreSQL import run ${run}/${runs}: people ${rate(people)}, again ${rate(peopleAgain)}, ` +
          `companies ${rate(companies)}`,
      );
    }
  } catch (error) {
    await database?.drop();
    throw error;
  }
  return { runs: results, database: database! };
}
