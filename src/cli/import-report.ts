// What `enrich import` says besides its summary: every failure named with its file, rejected lines capped,
// and a hint when nearly every line of a file was rejected (a people file imported as companies).
import { access, constants, stat } from 'node:fs/promises';
import { ImportInterruptedError, likelyEntity, type Rejection } from '../ingest/index.js';
import type { Entity } from '../vocabulary/entities.js';
import { UsageError } from './options.js';

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

/** The one-line error for a file whose import failed, `later` files being left unimported. */
export function importFailure(file: string, error: unknown, later: number): Error {
  const interrupted = error instanceof ImportInterruptedError;
  const reason = reasonOf(interrupted ? error.cause : error);
  const committed = interrupted ? `; ${error.committed} records of it were committed before the failure` : '';
  const rest = later > 0 ? `; the ${later} file(s) after it were not imported` : '';
  return new Error(`${file}: ${reason}${committed}${rest}`, { cause: error });
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
    process.stderr.write(`${this.file}:${rejection.line}: ${rejection.path}: ${rejection.message}\n`);
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
