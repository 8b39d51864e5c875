// PostgreSQL beside SQLite in one benchmark run: scratch databases on the server `--postgres URL` names.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { parentPid } from './system.js';

export interface ScratchDatabase {
  /** DATABASE_URL for the scratch database. */
  url: string;
  /** The server's version, as `SHOW server_version` gives it. */
  version: string;
  /** The postmaster's pid when the server runs on this machine (its backends are its children), else undefined. */
  postmasterPid?: number;
  drop(): Promise<void>;
}

let made = 0;

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * Transactions the database `url` names has committed or rolled back so far (pg_stat_database, read fresh):
 * the difference over a run is what the run cost PostgreSQL in transactions.
 */
export async function transactionCount(url: string): Promise<number> {
  return withClient(url, async (client) => {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      'SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  });
}

/** The parent of a backend process, when both are PostgreSQL processes on this machine. */
function localPostmaster(backendPid: number): number | undefined {
  try {
    const parent = parentPid(backendPid);
    const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return comm(backendPid) === 'postgres' && comm(parent) === 'postgres' ? parent : undefined;
  } catch {
    return undefined; // not on this machine
  }
}

/**
 * A new, empty database on the server `serverUrl` connects to (which needs CREATEDB), named so that no
 * existing database is touched; `drop()` removes it. The database `serverUrl` names is only connected to.
 */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `enrich_bench_${process.pid}_${++made}`;
  const { version, postmasterPid } = await withClient(serverUrl, async (client) => {
    await client.query(`CREATE DATABASE ${name}`);
    const { rows } = await client.query<{ version: string; pid: number }>(
      'SELECT current_setting($1) AS version, pg_backend_pid() AS pid',
      ['server_version'],
    );
    // Read while this backend is alive: its parent is the postmaster.
    return { version: rows[0]!.version, postmasterPid: localPostmaster(rows[0]!.pid) };
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    version,
    postmasterPid,
    drop: async () => {
      await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
