// A data set's NDJSON files, plain or gzip: found in a directory, read line by line, written with backpressure.
import { createWriteStream } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { isBlank, LineSplitter, openNdjson } from '../../ingest/lines.js';

export interface DataFile {
  file: string;
  gzip: boolean;
}

/** DIR/<entity>.ndjson, else DIR/<entity>.ndjson.gz, as `enrich generate` writes them. */
export async function findDataFile(dir: string, entity: 'companies' | 'people'): Promise<DataFile> {
  for (const [name, gzip] of [
    [`${entity}.ndjson`, false],
    [`${entity}.ndjson.gz`, true],
  ] as const) {
    const file = path.join(dir, name);
    try {
      await access(file);
      return { file, gzip };
    } catch {}
  }
  throw new Error(`${dir} holds neither ${entity}.ndjson nor ${entity}.ndjson.gz`);
}

/**
 * Calls `onLine` with each non-blank line's bytes, `await`ing `between` after every chunk read (where a
 * writer waits for room). `onProgress` gets the file's bytes read so far and its size. A line that
 * `onLine` cannot take fails the read with the file and line number.
 */
export async function readLines(
  file: string,
  onLine: (buffer: Buffer, start: number, end: number) => void,
  between: () => Promise<void>,
  onProgress?: (bytesRead: number, totalBytes: number) => void,
): Promise<void> {
  const source = await openNdjson(file);
  let lineNumber = 0;
  const splitter = new LineSplitter((buffer, start, end) => {
    lineNumber++;
    if (isBlank(buffer, start, end)) return;
    try {
      onLine(buffer, start, end);
    } catch (error) {
      throw new Error(`${file}:${lineNumber}: ${(error as Error).message}`);
    }
  });
  for await (const chunk of source.chunks()) {
    splitter.push(chunk);
    await between();
    onProgress?.(source.bytesRead(), source.totalBytes);
  }
  splitter.end();
}

/** Output is gathered into pieces of about this size before it reaches the stream. */
const PIECE_BYTES = 1 << 20;
const NEWLINE = Buffer.from('\n');

/** Writes lines to a file, gzip (level 1, as `enrich generate --gzip`) or plain. */
export class LineWriter {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly head: Writable;
  private readonly done: Promise<void>;

  constructor(file: string, gzip: boolean) {
    const out = createWriteStream(file);
    if (gzip) {
      const zip = createGzip({ level: 1 });
      this.head = zip;
      this.done = pipeline(zip, out);
    } else {
      this.head = out;
      this.done = finished(out);
    }
    // A failure surfaces where the writer is next awaited; until then it must not go unhandled.
    this.done.catch(() => {});
  }

  /** Adds one line (without its newline): bytes as they were read, or text. */
  line(content: Buffer | string): void {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    this.parts.push(bytes, NEWLINE);
    this.size += bytes.length + 1;
  }

  /** Hands what is gathered to the stream once there is enough, waiting while the stream is full. */
  async drain(force = false): Promise<void> {
    if (this.size === 0 || (!force && this.size < PIECE_BYTES)) return;
    const piece = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (!this.head.write(piece))
      await Promise.race([new Promise((r) => this.head.once('drain', r)), this.done]);
  }

  async close(): Promise<void> {
    await this.drain(true);
    this.head.end();
    await this.done;
  }
}
