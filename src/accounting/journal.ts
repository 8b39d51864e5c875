// The accounting journal: every keyed lookup appended to a file of this process's own before its reply
// leaves, so that a crash loses no record of what a client was sent. Files are folded into the store.
import { closeSync, ftruncateSync, openSync, readdirSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileModes, privateDir, tighten } from '../store/file-modes.js';
import { isAlive, thisWriter, type WriterId } from '../store/serving/writers.js';

/** A segment is sealed, and a new one begun, past this size: folded segments are then deleted. */
const SEGMENT_BYTES = 16 * 1024 * 1024;
const OPEN = '.journal';
const SEALED = '.sealed';

/** One journal file: whose it is, whether it can still grow. */
export interface Segment {
  /** Its name in the store's table of fold offsets: the file name without `.journal`/`.sealed`, kept by a seal. */
  id: string;
  path: string;
  writer: WriterId;
  /** Sealed by its writer, or left open by a process that is gone: it will not grow. */
  finished: boolean;
}

/** `<pid>-<start time>-<sequence>.journal`, or `.sealed` once its writer has moved on. */
const SEGMENT_NAME = /^(\d+)-(\d+)-(\d+)\.(journal|sealed)$/;

/** Every segment in `dir`, oldest first per writer. */
export function listSegments(dir: string): Segment[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const segments: Array<Segment & { sequence: number }> = [];
  for (const name of names) {
    const match = SEGMENT_NAME.exec(name);
    if (!match) continue;
    const writer = { pid: Number(match[1]), started: Number(match[2]) };
    const finished = match[4] === 'sealed' || !isAlive(writer);
    const id = name.slice(0, name.lastIndexOf('.'));
    segments.push({ id, path: join(dir, name), writer, finished, sequence: Number(match[3]) });
  }
  return segments.sort((a, b) => a.sequence - b.sequence);
}

/**
 * Appends lines to this process's current segment. `append` only buffers; `commit` writes what is
 * buffered in one system call (no fsync: a process killed after it returns loses nothing, the kernel
 * holds the bytes; a machine that loses power may lose its last seconds).
 */
export class JournalWriter {
  private fd: number;
  private name: string;
  private sequence = 0;
  private written = 0;
  private pending: string[] = [];

  /** The journal records who looked up whom: its directory and files are the service's own. */
  private readonly modes = fileModes();

  constructor(private readonly dir: string) {
    privateDir(dir, this.modes);
    for (const segment of listSegments(dir)) tighten(segment.path, this.modes.file);
    ({ fd: this.fd, name: this.name } = this.begin());
  }

  private begin(): { fd: number; name: string } {
    const { pid, started } = thisWriter();
    const name = `${pid}-${started}-${++this.sequence}${OPEN}`;
    return { fd: openSync(join(this.dir, name), 'a', this.modes.file), name };
  }

  /** The id of the segment being written (see Segment). */
  get current(): string {
    return this.name.slice(0, -OPEN.length);
  }

  append(line: string): void {
    this.pending.push(line);
  }

  /** True when lines wait to be committed. */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  /** How many lines wait to be committed. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Writes the buffered lines. When they cannot all be written (a full disk), the segment is cut back to
   * its last whole commit and they are dropped, then the error is thrown: their replies must not go out.
   */
  commit(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(''));
    this.pending = [];
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.written);
      } catch {
        // A line cut short is never folded: the folder reads whole lines only.
      }
      throw error;
    }
    this.written += bytes.length;
    if (this.written >= SEGMENT_BYTES) {
      this.seal();
      ({ fd: this.fd, name: this.name } = this.begin());
      this.written = 0;
    }
  }

  /** Seals the current segment: it will not grow, and its folder deletes it once folded. */
  private seal(): void {
    closeSync(this.fd);
    const sealed = this.name.slice(0, -OPEN.length) + SEALED;
    renameSync(join(this.dir, this.name), join(this.dir, sealed));
  }

  /** Commits what is buffered and seals the segment: nothing more will be written. */
  close(): void {
    this.commit();
    this.seal();
  }
}
