// enrich backup FILE | enrich restore FILE: a consistent copy of the embedded store taken while it serves, and
// putting one back.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { defaultJournalDir } from '../config.js';
import { openStore, type StoreLocation } from '../store/open.js';
import type { StoreContents } from '../store/sqlite/backup.js';
import { storeLocation, UsageError, withStore } from './options.js';
import { type Progress, progressBar } from './progress.js';

const MB = 1024 * 1024;

const POSTGRES = (command: string, how: string) =>
  `enrich ${command} is for the embedded SQLite store; DATABASE_URL is set, so ${how} ` +
  '(docs/deployment.md, "Backups")';

/** The SQLite file a command works on; refused, pointing at PostgreSQL's own tools, when DATABASE_URL is set. */
function embeddedStore(opts: { db?: string }, command: string, how: string): StoreLocation {
  const location = storeLocation(opts);
  if (location.databaseUrl) throw new UsageError(POSTGRES(command, how));
  return location;
}

const journalDir = (location: StoreLocation) => process.env.ENRICH_JOURNAL_DIR || defaultJournalDir(location);

/** Folds the accounting journals into the store (live servers' too): how many lookups that added. */
async function foldJournals(location: StoreLocation, servingIndex: boolean): Promise<number> {
  const { JournalFolder } = await import('../accounting/folder.js');
  const store = await openStore({ ...location, servingIndex });
  try {
    return await new JournalFolder(store, journalDir(location)).foldNow();
  } finally {
    await store.close();
  }
}

const sameFile = (a: string, b: string) => {
  const [x, y] = [statSync(a), statSync(b)];
  return x.dev === y.dev && x.ino === y.ino;
};

const count = (n: number, noun: string) => `${n.toLocaleString('en')} ${noun}`;
const held = (c: StoreContents) =>
  `${count(c.people, 'people')}, ${count(c.companies, 'companies')} and ${count(c.keys, c.keys === 1 ? 'key' : 'keys')}`;
const lookups = (n: number) => `${count(n, n === 1 ? 'lookup' : 'lookups')}`;

/** The copy's progress as a bar in MB. */
const inMegabytes = (bar: Progress) => (copied: number, total: number) =>
  bar.update(Math.round(copied / MB), Math.max(1, Math.round(total / MB)));

export function registerBackup(program: Command) {
  withStore(program.command('backup'))
    .description('write a consistent copy of the SQLite store to FILE, while it serves and imports')
    .argument('<file>', 'the copy: a SQLite file of its own, which any command opens with --db FILE')
    .option('--force', 'replace FILE if it exists')
    .action(async (file: string, opts) => {
      const location = embeddedStore(opts, 'backup', 'back PostgreSQL up with pg_dump or a base backup');
      const { dbPath } = location;
      if (!existsSync(dbPath)) throw new UsageError(`${dbPath}: no such store`);
      if (existsSync(file)) {
        if (sameFile(file, dbPath)) throw new UsageError(`${file} is the store itself`);
        if (statSync(file).isDirectory())
          throw new UsageError(`${file} is a directory: name the file to write`);
        if (!opts.force) throw new UsageError(`${file} exists: give another name, or --force to replace it`);
      }
      mkdirSync(dirname(file), { recursive: true });
      const started = performance.now();
      // First every lookup answered so far, so that the copy holds its audit entry, usage and quota count.
      const folded = await foldJournals(location, false);
      const { backupStore } = await import('../store/sqlite/backup.js');
      const bar = progressBar(basename(file), 'MB');
      const copied = await backupStore(dbPath, file, inMegabytes(bar)).finally(() => bar.stop());
      const seconds = (performance.now() - started) / 1000;
      const size = Math.max(1, Math.round(statSync(file).size / MB));
      process.stdout.write(
        `${file}: ${dbPath} backed up, ${held(copied)} (${size} MB) in ${seconds.toFixed(1)} s; ` +
          `${lookups(folded)} folded in from the accounting journal first\n`,
      );
    });

  withStore(program.command('restore'))
    .description('put a backup in place of the SQLite store (refused while a process uses the store)')
    .argument('<file>', 'a file written by "enrich backup"')
    .action(async (file: string, opts) => {
      const location = embeddedStore(
        opts,
        'restore',
        'restore PostgreSQL with pg_restore or from a base backup',
      );
      const { dbPath } = location;
      if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
      if (existsSync(dbPath) && sameFile(file, dbPath)) throw new UsageError(`${file} is the store itself`);
      const { describeHolders, storeHolders } = await import('../store/sqlite/holders.js');
      const refuseIfHeld = () => {
        const holders = storeHolders(dbPath);
        if (holders.length === 0) return;
        const them = holders.length > 1 ? 'them' : 'it';
        throw new UsageError(`${describeHolders(holders, dbPath)}: stop ${them} first, then restore`);
      };
      refuseIfHeld();
      mkdirSync(dirname(dbPath), { recursive: true });
      const { NotAStoreError, restoreStore } = await import('../store/sqlite/backup.js');
      const bar = progressBar(basename(file), 'MB');
      const restored = await restoreStore(file, dbPath, {
        onProgress: inMegabytes(bar),
        beforeSwap: refuseIfHeld,
      })
        .catch((error: unknown) => {
          throw error instanceof NotAStoreError ? new UsageError(error.message) : error;
        })
        .finally(() => bar.stop());
      // Opening the restored file rebuilds its serving index; then the journal left beside the store is
      // folded in from the backup's own offsets: lookups answered after the backup, each counted once.
      const started = performance.now();
      const folded = await foldJournals(location, true);
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `${dbPath}: restored from ${file}, ${held(restored)}; serving index rebuilt and ` +
          `${lookups(folded)} folded in from the accounting journal in ${seconds.toFixed(1)} s\n`,
      );
    });
}
