// Reads an NDJSON file as raw chunks of bytes, gunzipping it when it starts with the gzip magic bytes.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

/** Bytes read per chunk: big enough that per-chunk overhead vanishes next to per-line work. */
const CHUNK_BYTES = 1 << 20;

export interface NdjsonSource {
  /** Size of the file on disk (compressed, when it is gzip). */
  readonly totalBytes: number;
  /** True when the file is gzip (each reader then decompresses all of it). */
  readonly gzip: boolean;
  /** Bytes of the file read so far, comparable with totalBytes. */
  bytesRead(): number;
  /** The (decompressed) bytes of the file, in order. */
  chunks(): AsyncIterable<Buffer>;
}

/** True when bytes open with gzip's magic number: how gzip is detected, whatever the file is called. */
export const startsLikeGzip = (bytes: Buffer) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

export async function inspectNdjson(file: string): Promise<{ size: number; gzip: boolean }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return { size, gzip: startsLikeGzip(buffer.subarray(0, bytesRead)) };
  } finally {
    await handle.close();
  }
}

/** Opens an NDJSON file, plain or gzip (detected by content, not by name). */
export async function openNdjson(file: string): Promise<NdjsonSource> {
  const { size, gzip } = await inspectNdjson(file);
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  return {
    totalBytes: size,
    gzip,
    bytesRead: () => raw.bytesRead,
    async *chunks() {
      try {
        if (!gzip) {
          yield* raw as AsyncIterable<Buffer>;
          return;
        }
        const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
        raw.on('error', (error) => gunzip.destroy(error));
        yield* raw.pipe(gunzip) as AsyncIterable<Buffer>;
      } finally {
        raw.destroy();
      }
    },
  };
}

/**
 * Splits chunks into lines as byte ranges, without decoding: `onLine(buffer, start, end)` for each, the
 * `\n` excluded. A line split across chunks is joined first (a long line costs linear time). A line longer
 * than `maxLineBytes` is not kept in memory: it is skipped to its end and `onLongLine()` called instead.
 */
export class LineSplitter {
  private carry: Buffer[] = [];
  private carried = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (buffer: Buffer, start: number, end: number) => void,
    private readonly maxLineBytes = Number.POSITIVE_INFINITY,
    private readonly onLongLine: () => void = () => {},
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(0x0a);
    if (newline >= 0 && (this.carry.length > 0 || this.skipping)) {
      this.endCarried(chunk.subarray(0, newline));
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    while (newline >= 0) {
      if (newline - start > this.maxLineBytes) this.onLongLine();
      else this.onLine(chunk, start, newline);
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start === chunk.length || this.skipping) return;
    this.carried += chunk.length - start;
    if (this.carried > this.maxLineBytes) {
      this.skipping = true;
      this.carry = [];
    } else this.carry.push(chunk.subarray(start));
  }

  /** The last line, when the file does not end with a newline. */
  end(): void {
    if (this.carry.length > 0 || this.skipping) this.endCarried(Buffer.alloc(0));
  }

  /** Ends the line begun in earlier chunks with `rest`. */
  private endCarried(rest: Buffer): void {
    if (this.skipping || this.carried + rest.length > this.maxLineBytes) this.onLongLine();
    else {
      const joined = Buffer.concat([...this.carry, rest]);
      this.onLine(joined, 0, joined.length);
    }
    this.carry = [];
    this.carried = 0;
    this.skipping = false;
  }
}

/** True when bytes [start, end) are all spaces, tabs or carriage returns: a blank line. */
export function isBlank(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buffer[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}
