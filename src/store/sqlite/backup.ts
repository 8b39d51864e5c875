// Copies of a SQLite store: taken online and consistent while others write, checked, and put in place.
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Entity } from '../../vocabulary/entities.js';
import { privateFile } from '../file-modes.js';
import { SCHEMA_VERSION } from './schema.js';
import { schemaDifferences, schemaOf } from './schema-check.js';

/** Pages copied per step of the backup: 4 MiB of 16 KiB pages, then the event loop (a progress bar) runs. */
const PAGES_PER_STEP = 256;

/** What a store file holds, for a summary line. */
export interface StoreContents {
  schemaVersion: number;
  people: number;
  companies: number;
  keys: number;
}

/** A file that cannot be restored, and why; the message names the file. */
export class NotAStoreError extends Error {
  override name = 'NotAStoreError';
}

/** Bytes of the copy so far, and of the whole database. */
export type CopyProgress = (copied: number, total: number) => void;

/** A bulk load's mark, rewritten as a process that has gone: whoever opens the copy finishes the load. */
const ABANDONED_WRITER = JSON.stringify({ pid: 0, started: 0 });

const tablesOf = (db: Database.Database) =>
  new Set(db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all());

/** The keys' table: `api_keys` since version 13, `keys` in a backup taken before. */
const keysTableOf = (tables: Set<string>) => (tables.has('api_keys') ? 'api_keys' : 'keys');

function contents(db: Database.Database): StoreContents {
  const count = (table: string) => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get()!;
  return {
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
    people: count('people'),
    companies: count('companies'),
    keys: count(keysTableOf(tablesOf(db))),
  };
}

/** Flushes a file, or a directory's entries (a rename in it), to disk. */
function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies `source` into the new file `target` with SQLite's online backup API, and returns what the copy
 * holds. The copy is read in one read transaction: in WAL mode that is one snapshot, which writers in
 * other processes never disturb (they keep appending to the WAL), so the copy is consistent and each
 * step goes on from the last. Without it, the backup API starts over whenever another process commits,
 * and under a running import it never finishes.
 */
async function copyDatabase(
  source: Database.Database,
  target: string,
  onProgress: CopyProgress,
): Promise<StoreContents> {
  rmSync(target, { force: true });
  privateFile(target); // the copy holds what the store does: never readable by others, even half-written
  const pageBytes = source.pragma('page_size', { simple: true }) as number;
  source.exec('BEGIN');
  try {
    const held = contents(source); // this read starts the snapshot the copy is taken from
    await source.backup(target, {
      progress: ({ totalPages, remainingPages }) => {
        onProgress((totalPages - remainingPages) * pageBytes, totalPages * pageBytes);
        return PAGES_PER_STEP;
      },
    });
    return held;
  } finally {
    source.exec('COMMIT');
  }
}

/**
 * Makes a fresh copy a plain file of its own: a rollback journal instead of WAL (so it can be read and
 * copied without companions), and every bulk load it caught half-way marked as abandoned — in the copy
 * no one is going to finish it, so the next process to open it builds its identifier index.
 */
function sealCopy(target: string): void {
  const db = new Database(target);
  try {
    db.pragma('journal_mode = DELETE');
    // A file of schema 7 or later (an older one, being restored, is migrated when it is opened).
    const marks = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'bulk_loads'");
    if (marks.get()) db.prepare('UPDATE bulk_loads SET writer = ?').run(ABANDONED_WRITER);
  } finally {
    db.close();
  }
  fsyncPath(target);
}

/**
 * Writes a consistent copy of the store at `dbPath` to `file` while other processes serve and import.
 * The copy is made beside `file` and renamed over it once complete, so `file` is never half written.
 */
export async function backupStore(
  dbPath: string,
  file: string,
  onProgress: CopyProgress = () => {},
): Promise<StoreContents> {
  const partial = `${file}.partial-${process.pid}`;
  // Read-write (it writes nothing) so that, the last to close, it tidies the WAL away as it found it.
  const source = new Database(dbPath, { fileMustExist: true });
  try {
    const held = await copyDatabase(source, partial, onProgress);
    sealCopy(partial);
    renameSync(partial, file);
    fsyncPath(dirname(file));
    return held;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}

/** SQLite's message for a file it cannot read as a database, in words for the operator. */
function unreadable(file: string, error: unknown): NotAStoreError {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_NOTADB') return new NotAStoreError(`${file} is not a SQLite database`);
  if (code === 'SQLITE_CORRUPT') return new NotAStoreError(`${file} is damaged: ${(error as Error).message}`);
  return new NotAStoreError(`${file} cannot be read: ${(error as Error).message}`);
}

/** The entities whose bulk load a file caught half-way (schema 7 and later mark them). */
function loadingIn(db: Database.Database): Entity[] {
  const marks = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'bulk_loads'");
  return marks.get() ? db.prepare<[], Entity>('SELECT entity FROM bulk_loads').pluck().all() : [];
}

/** Refuses a file whose schema is not exactly its version's, naming what differs (the first few). */
function checkSchemaObjects(file: string, db: Database.Database, version: number): void {
  const differences = schemaDifferences(schemaOf(db), version, loadingIn(db));
  if (differences.length === 0) return;
  const shown = differences.slice(0, 5).join('; ');
  const more = differences.length > 5 ? `; and ${differences.length - 5} more` : '';
  throw new NotAStoreError(
    `${file} holds a schema that Enrich (schema ${version}) does not define: ${shown}${more}. Refusing to restore it`,
  );
}

/**
 * Opens `file` read-only and checks that it is an Enrich store this version can open: its schema
 * version, every object of its schema (exactly those its version defines), and SQLite's quick integrity
 * check (every page read once).
 */
export function openBackup(file: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw unreadable(file, error);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = tablesOf(db);
    if (version === 0 || !['people', 'companies', keysTableOf(tables)].every((t) => tables.has(t))) {
      throw new NotAStoreError(`${file} is a SQLite database but not an Enrich store`);
    }
    if (version > SCHEMA_VERSION) {
      throw new NotAStoreError(
        `${file} was written by a newer version of Enrich (schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
      );
    }
    checkSchemaObjects(file, db, version);
    const problems = db.prepare<[], string>('PRAGMA quick_check(5)').pluck().all();
    if (problems[0] !== 'ok') throw new NotAStoreError(`${file} is damaged: ${problems.join('; ')}`);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof NotAStoreError ? error : unreadable(file, error);
  }
}

/**
 * Puts the backup `file` in place of the store at `dbPath` (which must be held by no process: `beforeSwap`
 * may check once more, and throw, just before the old file is touched): copied beside it and synced, the old file's WAL, shared memory, rollback journal and serving index removed —
 * a WAL left beside the new file would be replayed into it, and the index is of the old file — then
 * renamed over it. A crash before the rename leaves the old file, without those companions.
 */
export async function restoreStore(
  file: string,
  dbPath: string,
  opts: { onProgress?: CopyProgress; beforeSwap?: () => void } = {},
): Promise<StoreContents> {
  const source = openBackup(file);
  const incoming = `${dbPath}.restoring-${process.pid}`;
  try {
    const held = await copyDatabase(source, incoming, opts.onProgress ?? (() => {}));
    sealCopy(incoming);
    opts.beforeSwap?.();
    for (const companion of ['-wal', '-shm', '-journal', '-index', '-index-lock']) {
      rmSync(`${dbPath}${companion}`, { force: true, recursive: true });
    }
    renameSync(incoming, dbPath);
    fsyncPath(dirname(dbPath));
    return held;
  } catch (error) {
    rmSync(incoming, { force: true });
    throw error;
  } finally {
    source.close();
  }
}
