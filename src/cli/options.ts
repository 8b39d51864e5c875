// Options every command shares: where the store is (contract §7), and entity names.
import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { defaultJournalDir, loadConnections } from '../config.js';
import { ConfigError } from '../config-error.js';
import { describeStore, openStore, type StoreLocation } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { Entity } from '../vocabulary/entities.js';

export const DEFAULT_DB = './data/enrich.db';

const DB_FLAGS = '--db <path>';
const DB_HELP = 'SQLite file (default: $ENRICH_DB, else ./data/enrich.db); ignored when DATABASE_URL is set';

/** Adds --db to a command that opens the store (PostgreSQL is chosen by DATABASE_URL). */
export const withStore = (command: Command) => command.option(DB_FLAGS, DB_HELP);

/** What the top-level help says every store command takes, besides --db. */
export const STORE_HELP = `
Every command that opens the store (all but generate and migrate) takes:
  --db <path>          the SQLite file (default: $ENRICH_DB, else ${DEFAULT_DB}),
                       before or after the command name: enrich --db X usage = enrich usage --db X
  DATABASE_URL         use PostgreSQL instead (postgres://…); --db is then ignored
  DATABASE_READ_URL    a PostgreSQL replica for reads (optional)
  ENRICH_JOURNAL_DIR   the accounting journal's directory (default: beside the store)
Run "enrich COMMAND --help" for a command's own options.`;

/** `enrich keys create`: a command's name with its parents'. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Makes --db an option of the whole program, so that it is accepted before the command name as well as after
 * it (Commander reads a program's options anywhere on the line): the value is handed to the command that
 * runs, and refused by a command that opens no store, rather than silently ignored.
 */
export function acceptGlobalOptions(program: Command): Command {
  return program.option(DB_FLAGS, DB_HELP).hook('preAction', (root, action) => {
    const { db } = root.opts() as { db?: string };
    if (db === undefined) return;
    if (!action.options.some((option) => option.long === '--db'))
      action.error(`error: --db does not apply to ${commandPath(action)}, which opens no SQLite store`);
    action.setOptionValue('db', db);
  });
}

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

/**
 * The server a command works through, when it is to: --url (else ENRICH_URL, unless --db names a local store)
 * with --token (else ENRICH_TOKEN); undefined for the local store.
 */
export function serverOf(opts: { db?: string; url?: string; token?: string }, env = process.env) {
  const url = opts.url ?? (opts.db === undefined ? env.ENRICH_URL || undefined : undefined);
  const token = opts.token ?? (env.ENRICH_TOKEN || undefined);
  if (url === undefined) return undefined;
  if (token === undefined) throw new UsageError('--url needs --token (or ENRICH_TOKEN)');
  return { url, token };
}

/** Refuses a command on a SQLite store that is not there (opening it would create an empty one). */
export function requireLocalStore(opts: { db?: string }): void {
  const location = storeLocation(opts);
  if (!location.databaseUrl && !existsSync(location.dbPath))
    throw new UsageError(
      `no store at ${location.dbPath}: import records first, or give --db, DATABASE_URL or --url`,
    );
}

/** Opens the store for a command, runs `work`, and always closes it. */
export async function withOpenStore<T>(
  opts: { db?: string },
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore(storeLocation(opts));
  let result: T;
  try {
    result = await work(store);
  } catch (error) {
    // What went wrong is the work's failure; a store that then fails to close too (a full disk) says less.
    await store.close().catch(() => {});
    throw error;
  }
  await store.close();
  return result;
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
