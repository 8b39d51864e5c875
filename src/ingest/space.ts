// Room for an import: an estimate of the space it takes from the NDJSON it reads, the free space where the
// store is, and whether a failure was the disk filling up.
import { open, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { startsLikeGzip } from './lines.js';

/**
 * Bytes of store per byte of NDJSON imported: SQLite's records, identifiers and search columns, and the
 * serving index beside them (46 MB of generated people and companies took 180 MB: 3.9), with the WAL's
 * growth during the import in the margin.
 */
export const STORE_BYTES_PER_NDJSON_BYTE = 4;

/**
 * The NDJSON bytes a file holds: its size, or for gzip the size its trailer records (modulo 4 GiB, so a
 * smaller figure than the file itself means more than 4 GiB: then ten times the file, gzip's usual ratio).
 */
export async function ndjsonBytes(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    if (!startsLikeGzip(head) || size < 18) return size;
    const trailer = Buffer.alloc(4);
    await handle.read(trailer, 0, 4, size - 4);
    const recorded = trailer.readUInt32LE(0);
    return recorded >= size ? recorded : size * 10;
  } finally {
    await handle.close();
  }
}

/** The space an import of `ndjson` bytes may take: an estimate, which a re-import of the same records beats. */
export const importEstimate = (ndjson: number) => ndjson * STORE_BYTES_PER_NDJSON_BYTE;

/** Free bytes for this process on the filesystem that holds `path` (or would: its nearest existing folder). */
export async function freeBytes(path: string): Promise<number> {
  let dir = dirname(path);
  while (
    !(await stat(dir)
      .then((s) => s.isDirectory())
      .catch(() => false)) &&
    dirname(dir) !== dir
  )
    dir = dirname(dir);
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** True when an error (or what caused it) says the disk is full: ENOSPC, SQLite's FULL, PostgreSQL's 53100. */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (FULL_CODES.has(String(code))) return true;
    if (/no space left on device|database or disk is full|disk full/i.test(String(message ?? '')))
      return true;
  }
  return false;
}
