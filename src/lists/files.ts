// Where a list job's files live: the upload as received and the result as written, side by side in the
// lists directory (ENRICH_LISTS_DIR, by default beside the store), private to the service's user.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ProblemError } from '../errors.js';
import { fileModes, privateDir } from '../store/file-modes.js';

/** The largest upload taken: a million rows of a wide list fit well within it. */
export const MAX_UPLOAD_BYTES = 1024 ** 3;

export class ListFiles {
  constructor(readonly dir: string) {
    privateDir(dir);
  }

  upload(id: string): string {
    return join(this.dir, `${id}.upload`);
  }

  result(id: string): string {
    return join(this.dir, `${id}.result`);
  }

  /** Removes a job's files, those it has. */
  async remove(id: string): Promise<void> {
    await Promise.all([rm(this.upload(id), { force: true }), rm(this.result(id), { force: true })]);
  }

  /**
   * Streams a request's body to the job's upload file, in constant memory; returns its size. A body over
   * `max` bytes is a 413, and leaves no file.
   */
  async receive(id: string, body: Readable, max = MAX_UPLOAD_BYTES): Promise<number> {
    let bytes = 0;
    const path = this.upload(id);
    async function* bounded(source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        if (bytes > max) {
          throw new ProblemError(
            'payload_too_large',
            `A list may hold up to ${max.toLocaleString('en')} bytes; split it.`,
            { max_bytes: max },
          );
        }
        yield chunk;
      }
    }
    try {
      await pipeline(body, bounded, createWriteStream(path, { flags: 'wx', mode: fileModes().file }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return bytes;
  }
}
