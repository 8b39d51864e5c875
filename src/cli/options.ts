// Options every command shares: where the store is (contract §7), and entity names.
import { type Command, InvalidArgumentError } from 'commander';
import { defaultJournalDir, loadConnections } from '../config.js';
import { ConfigError } from '../config-error.js';
import { describeStore, openStore, type StoreLocation } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { Entity } from '../vocabulary/entities.js';

export const DEFAULT_DB = './data/enrich.db';

/** Adds --db to a command (PostgreSQL is chosen by DATABASE_URL). */
export const withStore = (command: Command) =>
  command.option(
    '--db <path>',
    'SQLite file (default: $ENRICH_DB, else ./data/enrich.db); ignored when DATABASE_URL is set',
  );

/** DATABASE_URL, DATABASE_READ_URL and REDIS_URL, checked as `serve` checks them; a usage error if bad. */
export function connections(env = process.env) {
  try {
    return loadConnections(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** Where a command's store is: --db, else ENRICH_DB, else ./data/enrich.db; PostgreSQL by DATABASE_URL. */
export function storeLocation(opts: { db?: string }, env = process.env): StoreLocation {
  const { databaseUrl, databaseReadUrl } = connections(env);
  return { dbPath: opts.db ?? env.ENRICH_DB ?? DEFAULT_DB, databaseUrl, databaseReadUrl };
}

/** Opens the store for a command, runs `work`, and always closes it. */
export async function withOpenStore<T>(
  opts: { db?: string },
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore(storeLocation(opts));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Like withOpenStore, for a command that reports audit or usage: the accounting journals are folded in
 * first — a crashed server's, and a running one's latest lookups — so the report holds every lookup
 * answered before it (each stretch of a journal is counted once, whoever folds it).
 */
export async function withReportStore<T>(
  opts: { db?: string },
  work: (store: Store) => Promise<T>,
  env = process.env,
): Promise<T> {
  return withOpenStore(opts, async (store) => {
    const location = storeLocation(opts, env);
    const dir = env.ENRICH_JOURNAL_DIR || defaultJournalDir(location);
    const { JournalFolder } = await import('../accounting/folder.js');
    await new JournalFolder(store, dir).foldNow();
    return work(store);
  });
}

export { describeStore };

/** Parses the entity argument: `people` or `companies`. */
export function parseEntity(value: string): Entity {
  if (value === 'people' || value === 'companies') return value;
  throw new InvalidArgumentError('expected "people" or "companies"');
}

/** Parses a whole number ≥ `min` for an option. */
export const wholeNumber =
  (min = 0) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
    return Number(value);
  };

/** Parses a day option: 'YYYY-MM-DD', a real calendar day. */
export function calendarDay(value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(date.getTime()) ||
    !date.toISOString().startsWith(value)
  ) {
    throw new InvalidArgumentError('expected a date such as 2026-11-01');
  }
  return value;
}

/** Collects a repeatable option's values. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Thrown for failures the user caused: printed as one line without a stack, exit code 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** True for a write to a pipe whose reader has gone (`enrich export people | head`). */
export const isBrokenPipe = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';
