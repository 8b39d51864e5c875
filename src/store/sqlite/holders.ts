// Which processes have a SQLite store open, so that a restore can refuse to pull the file from under them.
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import Database from 'better-sqlite3';

/** A process using the store, as a message names it: `a server (pid 4242)`. */
export interface Holder {
  /** 0 when SQLite says the file is held but the system cannot say by whom. */
  pid: number;
  /** What it is: `a server`, `enrich import`, `a process`. */
  role: string;
}

/** The device and inode /proc/locks names a file by: `fe:00:2237121` (major and minor in hex). */
function lockKey(path: string): string | undefined {
  try {
    const { dev, ino } = statSync(path, { bigint: true });
    // glibc's gnu_dev_major and gnu_dev_minor: dev_t splits its numbers across both halves.
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`;
  } catch {
    return undefined;
  }
}

const LOCK_LINE = /^\d+:\s+(?:->\s+)?\S+\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+:[0-9a-f]+:\d+)\s/;

/**
 * Pids holding a lock on any of `paths`, from the kernel's table of file locks (Linux), or undefined
 * where there is no such table. Every SQLite connection in WAL mode holds a shared lock on the file and
 * on its `-shm` for as long as it is open, busy or idle.
 */
function lockingPids(paths: string[]): Set<number> | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const keys = new Set(paths.map(lockKey).filter((key) => key !== undefined));
  const pids = new Set<number>();
  for (const line of table.split('\n')) {
    const match = LOCK_LINE.exec(line);
    if (match && keys.has(match[2]!) && Number(match[1]) > 0) pids.add(Number(match[1]));
  }
  pids.delete(process.pid);
  return pids;
}

/**
 * SQLite's own answer, wherever it runs: an exclusive lock cannot be had while any other connection has
 * the file open. Taking it checkpoints a WAL left by a process that died; nothing else changes. A file
 * SQLite cannot read (damaged, not a database) is held by nobody as far as it can tell.
 */
export function heldBySomeone(dbPath: string): boolean {
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { fileMustExist: true, timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    db?.close();
  }
}

/** The command line of a process, split into its arguments; empty once it is gone. */
function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** `a server` for `enrich serve` (a cluster's primary and workers alike), `enrich import` for others. */
function roleOf(pid: number): string {
  const args = commandLine(pid);
  const cli = args.findIndex((arg) => /(^|\/)(enrich(\.js)?|cli\/main\.js)$/.test(arg));
  const command = cli >= 0 ? args.slice(cli + 1).find((arg) => !arg.startsWith('-')) : undefined;
  if (command === 'serve') return 'a server';
  if (command) return `enrich ${command}`;
  return args[0] ? `a process (${basename(args[0])})` : 'a process';
}

/**
 * The processes that have the store at `dbPath` open: a cluster's workers are named by their primary.
 * Empty when none does (or the file does not exist). The caller must not have it open itself: where the
 * system has no lock table, SQLite's lock cannot tell this process from another.
 */
export function storeHolders(dbPath: string): Holder[] {
  const pids = lockingPids([dbPath, `${dbPath}-shm`]);
  if (pids === undefined || pids.size === 0) {
    return heldBySomeone(dbPath) ? [{ pid: 0, role: 'another process' }] : [];
  }
  const leaders = [...pids].filter((pid) => !pids.has(parentOf(pid))).sort((a, b) => a - b);
  return leaders.map((pid) => ({ pid, role: roleOf(pid) }));
}

/** `a server (pid 4242) is using ./data/enrich.db`, for one or several holders. */
export function describeHolders(holders: Holder[], dbPath: string): string {
  const named = holders.map((h) => (h.pid > 0 ? `${h.role} (pid ${h.pid})` : h.role));
  const who =
    named.length <= 2 ? named.join(' and ') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return `${who} ${holders.length > 1 ? 'are' : 'is'} using ${dbPath}`;
}
