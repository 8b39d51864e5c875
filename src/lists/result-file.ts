// A list job's result file, written as the chunks are matched: cut back on a resume to the bytes its committed
// progress covers, every write in place and at once (a sync write per chunk), flushed to disk before the
// progress that covers it is committed.
import { closeSync, fdatasyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileModes } from '../store/file-modes.js';

export class ResultFile {
  /** Bytes of the file so far. */
  bytes: number;
  readonly stream: Writable;
  private readonly fd: number;

  /** Opens the result at `path`, keeping its first `keep` bytes (none: a new file). */
  constructor(path: string, keep: number) {
    this.fd = openSync(path, keep === 0 ? 'w' : 'r+', fileModes().file);
    ftruncateSync(this.fd, keep);
    this.bytes = keep;
    this.stream = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        try {
          for (let at = 0; at < chunk.length; )
            at += writeSync(this.fd, chunk, at, chunk.length - at, this.bytes + at);
          this.bytes += chunk.length;
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    });
  }

  /** Flushes what is written to the disk. */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  close(): void {
    this.stream.destroy();
    closeSync(this.fd);
  }
}
