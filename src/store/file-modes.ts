// Who may read the store's files: they hold personal data, so only the service's own user (files 0600,
// directories 0700) — or its group too, with ENRICH_GROUP_READABLE=true (0640, 0750) — whatever the umask.
// Files made by earlier versions are tightened as they are opened.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

export interface FileModes {
  file: number;
  dir: number;
}

const PRIVATE: FileModes = { file: 0o600, dir: 0o700 };
const GROUP_READABLE: FileModes = { file: 0o640, dir: 0o750 };

/**
 * The modes ENRICH_GROUP_READABLE asks for: `true` (or `1`) lets the files' group read them, for a backup
 * agent or a second service account in that group; unset, `false` or `0` keeps them the owner's alone.
 * @example fileModes({ ENRICH_GROUP_READABLE: 'true' }) // { file: 0o640, dir: 0o750 }
 */
export function fileModes(env: NodeJS.ProcessEnv = process.env): FileModes {
  const value = env.ENRICH_GROUP_READABLE?.trim() ?? '';
  if (value === 'true' || value === '1') return GROUP_READABLE;
  if (value === '' || value === 'false' || value === '0') return PRIVATE;
  throw new Error(`ENRICH_GROUP_READABLE must be true or false (got ${JSON.stringify(value)})`);
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Takes from an existing file or directory any permission beyond `mode` (never adds one); nothing when
 * it does not exist, or belongs to another user (whose own processes tighten it as they open it).
 */
export function tighten(path: string, mode: number): void {
  try {
    const current = statSync(path).mode & 0o777;
    if ((current & ~mode) !== 0) chmodSync(path, current & mode);
  } catch (error) {
    if (code(error) !== 'ENOENT' && code(error) !== 'EPERM') throw error;
  }
}

/**
 * Makes `path` an empty file of the private mode unless it exists, and tightens it if it does: before a
 * library (SQLite, LMDB) opens it with its own mode, so that it is never readable by others, even empty.
 */
export function privateFile(path: string, modes: FileModes = fileModes()): void {
  closeSync(openSync(path, 'a', modes.file));
  tighten(path, modes.file);
}

/** Makes a directory of the service's own (and its missing parents) of the private mode, or tightens it. */
export function privateDir(path: string, modes: FileModes = fileModes()): void {
  mkdirSync(path, { recursive: true, mode: modes.dir });
  tighten(path, modes.dir);
}
