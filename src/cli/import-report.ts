// What `enrich import` says besides its summary: every failure named with its file, rejected lines capped,
// and a hint when nearly every line of a file was rejected (a people file imported as companies).
import { access, constants, stat } from 'node:fs/promises';
import { type FileKind, fileKind, readHead } from '../ingest/file-kind.js';
import { ImportInterruptedError, likelyEntity, type Rejection } from '../ingest/index.js';
import { freeBytes, importEstimate, isDiskFull, ndjsonBytes } from '../ingest/space.js';
import type { Entity } from '../vocabulary/entities.js';
import { UsageError } from './options.js';
import { printable } from './printable.js';

/** Rejected lines printed per file; past them, one line says how many more there were. */
export const REJECTIONS_SHOWN = 100;

/** Why reading or importing a file failed, in words. */
function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'Z_BUF_ERROR':
      return 'the gzip data ends early: the file is truncated';
    case 'Z_DATA_ERROR':
      return `the gzip data is corrupt (${message})`;
    default:
      return message ?? String(error);
  }
}

/** Refuses, before anything is imported, a path that is missing, a directory or unreadable. */
export async function checkImportable(file: string): Promise<void> {
  let problem: string | undefined;
  try {
    if ((await stat(file)).isDirectory()) problem = 'is a directory, not a file';
    else await access(file, constants.R_OK);
  } catch (error) {
    problem = reasonOf(error);
  }
  if (problem !== undefined) throw new UsageError(`${file}: ${problem}`);
}

/**
 * What to do instead, for a file that holds no NDJSON records: a CSV (a list to match), a JSON array (records,
 * but not one per line) or binary data. Undefined for NDJSON, an empty file, or other text (whose lines are
 * rejected one by one, with the nearly-all hint). Never quotes binary bytes.
 */
export function wrongKind(file: string, entity: Entity, found: FileKind): string | undefined {
  const name = shellWord(file);
  switch (found.kind) {
    case 'csv':
      return (
        `${file} looks like CSV (its first line: ${printable(JSON.stringify(found.header))}), not NDJSON: ` +
        `enrich import takes records as JSON, one object per line. To match a list of ${entity} against the ` +
        `store, use: enrich match ${entity} ${name}`
      );
    case 'json-array':
      return (
        `${file} holds a JSON array, not NDJSON: enrich import takes one record per line. ` +
        `Write one per line first, e.g. jq -c '.[]' ${name} > ${entity}.ndjson`
      );
    case 'binary':
      return (
        `${file} is not text (${found.what ?? 'binary data'}): enrich import takes NDJSON, one JSON record ` +
        'per line (plain or gzip)'
      );
    default:
      return undefined;
  }
}

/** Refuses, before anything is imported, a file that holds CSV, a JSON array or binary data. */
export async function checkKind(file: string, entity: Entity): Promise<void> {
  const problem = wrongKind(file, entity, fileKind(await readHead(file)));
  if (problem !== undefined) throw new UsageError(problem);
}

/** Free space under which a failure of the store is taken for the disk filling up, whatever its code. */
const NEARLY_FULL = 16 * 1024 * 1024;

/** `1.2 GB`: a size for people. */
export const bytesText = (bytes: number) => {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
};

/**
 * Refuses an import into a SQLite store at `dbPath` whose files' estimate (STORE_BYTES_PER_NDJSON_BYTE times
 * their NDJSON) is more than the free space there; `--no-space-check` skips this.
 */
export async function checkSpace(files: readonly string[], dbPath: string): Promise<void> {
  let ndjson = 0;
  for (const file of files) ndjson += await ndjsonBytes(file);
  const needed = importEstimate(ndjson);
  const free = await freeBytes(dbPath);
  if (free >= needed) return;
  throw new UsageError(
    `the import may need about ${bytesText(needed)} beside ${dbPath} (${bytesText(ndjson)} of NDJSON, ` +
      `about 4 times that in the store); ${bytesText(free)} are free. Free some space, or give ` +
      '--no-space-check to import anyway: what an import commits before the disk fills stays, and running ' +
      'it again completes it',
  );
}

/** True when a failed import ran out of disk: its error says so, or the store's disk is (nearly) full now. */
export async function ranOutOfSpace(error: unknown, dbPath: string | undefined): Promise<boolean> {
  if (isDiskFull(error)) return true;
  if (dbPath === undefined) return false;
  return (await freeBytes(dbPath).catch(() => Number.POSITIVE_INFINITY)) < NEARLY_FULL;
}

/**
 * The one-line error for a file whose import failed, `later` files being left unimported; for a disk that
 * filled, what to do: its committed records stay, and the same import run again completes it (an upsert).
 */
export function importFailure(file: string, error: unknown, later: number, diskFull = false): Error {
  const interrupted = error instanceof ImportInterruptedError;
  const cause = interrupted ? error.cause : error;
  const reason = diskFull ? `the disk is full (${reasonOf(cause)})` : reasonOf(cause);
  const committed = interrupted ? `; ${error.committed} records of it were committed before the failure` : '';
  const again = diskFull
    ? '. Free some space and run the same import again to complete it (records already in are updated, not duplicated)'
    : '';
  const rest = later > 0 ? `; the ${later} file(s) after it were not imported` : '';
  return new Error(`${file}: ${reason}${committed}${rest}${again}`, { cause: error });
}

/** A file's rejected lines on stderr as `FILE:LINE: $.path: reason`: the first REJECTIONS_SHOWN of them. */
export class RejectionReport {
  private shown = 0;
  private notShown = 0;

  constructor(private readonly file: string) {}

  add(rejection: Rejection): void {
    if (this.shown === REJECTIONS_SHOWN) {
      this.notShown++;
      return;
    }
    this.shown++;
    // A line of binary data quoted in a JSON parser's message must not reach the terminal as it is.
    const text = printable(`${rejection.path}: ${rejection.message}`);
    process.stderr.write(`${this.file}:${rejection.line}: ${text}\n`);
  }

  /** Says how many rejected lines were not shown, if any. */
  finish(): void {
    if (this.notShown > 0) {
      process.stderr.write(`${this.file}: ${this.notShown} more rejected lines not shown\n`);
    }
  }
}

/** Rejections of at least this share of at least MIN_LINES lines: the file is not what it was said to be. */
const NEARLY_ALL = 0.9;
const MIN_LINES = 10;

/** A path as a shell word, quoted when it needs to be, for a command to copy. */
const shellWord = (path: string) =>
  /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;

/**
 * When nearly every line of a file was rejected, a line saying so, with what the file likely holds:
 * the other entity, when its schema accepts the file's first lines.
 */
export async function nearlyAllRejected(
  file: string,
  entity: Entity,
  counts: { read: number; rejected: number },
): Promise<string | undefined> {
  if (counts.read < MIN_LINES || counts.rejected < NEARLY_ALL * counts.read) return undefined;
  const likely = await likelyEntity(file);
  const hint =
    likely !== undefined && likely !== entity
      ? `is it a ${likely} file? (enrich import ${likely} ${shellWord(file)})`
      : `is it NDJSON of ${entity} records, one JSON object per line?`;
  return `nearly every line of ${file} was rejected (${counts.rejected} of ${counts.read} as ${entity}): ${hint}`;
}
