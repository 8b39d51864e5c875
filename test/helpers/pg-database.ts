// Throwaway databases on the machine's shared PostgreSQL: one per test file, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/store.js';

/** The shared server's administrative database; TEST_DATABASE_URL overrides it (as in CI). */
export const SHARED_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  /** Empties every table the store writes, so the next test starts from an empty store. */
  truncate(): Promise<void>;
  drop(): Promise<void>;
}

async function onAdminDatabase(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a unique name, migrated unless told otherwise. */
export async function createTestDatabase(
  opts: { migrate?: boolean; adminUrl?: string } = {},
): Promise<TestDatabase> {
  const adminUrl = opts.adminUrl ?? SHARED_POSTGRES_URL;
  const name = `enrich_test_${randomBytes(6).toString('hex')}`;
  await onAdminDatabase(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database: TestDatabase = {
    url: url.toString(),
    truncate: () =>
      onAdminDatabase(
        database.url,
        `TRUNCATE people, people_ident, people_search, companies, companies_ident, companies_search, api_keys, quota_use,
          key_usage, audit_log, audit_by_key, suppressions, journal_folds, retired_key_hashes, change_log, usage_minutes, watchlists,
          watchlist_entries, webhook_endpoints, webhook_deliveries, lists, console_sessions RESTART IDENTITY; UPDATE webhook_dispatch SET cursor = 0`,
      ),
    drop: () => onAdminDatabase(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
  if (opts.migrate ?? true) await migratePostgres(database.url);
  return database;
}
