// Versioned schema migrations for PostgreSQL (`enrich migrate`) and the schema check made at start-up.
import pg from 'pg';
import { isConnectionFailure, toStoreError } from '../unavailable.js';
import { LATEST_POSTGRES_VERSION, POSTGRES_MIGRATIONS } from './migrations.js';

/** Thrown on opening a store whose database is behind this build's schema. */
export class DatabaseNotMigratedError extends Error {
  constructor(
    readonly current: number,
    readonly latest: number,
  ) {
    super(
      `database is not migrated (schema version ${current}, this build needs ${latest}): run \`enrich migrate\``,
    );
    this.name = 'DatabaseNotMigratedError';
  }
}

// Any 64-bit constant: concurrent `enrich migrate` runs take turns on it instead of racing.
const MIGRATION_LOCK = 0x656e72696368;

interface Queryable {
  query<R extends pg.QueryResultRow>(text: string): Promise<pg.QueryResult<R>>;
}

/** The highest migration applied to a database, 0 when none has been. */
export async function schemaVersion(db: Queryable): Promise<number> {
  // Two statements: a reference to a missing table fails at parse time, whatever CASE would choose.
  const found = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS exists",
  );
  if (!found.rows[0]?.exists) return 0;
  const { rows } = await db.query<{ version: number }>(
    'SELECT coalesce(max(version), 0) AS version FROM schema_migrations',
  );
  return rows[0]?.version ?? 0;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {}); // the pending query rejects with the same failure
  try {
    await client.connect();
    return await work(client);
  } catch (err) {
    throw toStoreError(err);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function postgresSchemaStatus(url: string): Promise<{ current: number; latest: number }> {
  return withClient(url, async (client) => ({
    current: await schemaVersion(client),
    latest: LATEST_POSTGRES_VERSION,
  }));
}

/** Applies every pending migration, each in its own transaction; returns the versions applied. */
export async function migratePostgres(url: string): Promise<{ applied: number[] }> {
  return withClient(url, async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version int PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersion(client);
    const applied: number[] = [];
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version > current)) {
      try {
        await client.query('BEGIN');
        await client.query(migration.sql);
        await migration.fill?.(client);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        if (isConnectionFailure(err)) throw err;
        throw new Error(
          `migration ${migration.version} (${migration.name}) failed: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      applied.push(migration.version);
    }
    return { applied };
  });
}
