// Reads an NDJSON file as batches of text lines, gunzipping it when it starts with the gzip magic bytes.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

/** Bytes read per chunk: big enough that per-chunk overhead vanishes next to per-line work. */
const CHUNK_BYTES = 1 << 20;

export interface NdjsonSource {
  /** Size of the file on disk (compressed, when it is gzip). */
  readonly totalBytes: number;
  /** Bytes of the file read so far, comparable with totalBytes. */
  bytesRead(): number;
  /** Every line in file order, in batches, blank ones included so that line numbers hold; without `\n`. */
  lines(): AsyncIterable<string[]>;
}

async function inspect(file: string): Promise<{ size: number; gzip: boolean }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return { size, gzip: bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b };
  } finally {
    await handle.close();
  }
}

/**
 * Splits decoded text on `\n`. A line longer than a chunk is gathered in parts and joined once,
 * so a huge line costs linear time.
 */
async function* splitLines(chunks: AsyncIterable<Buffer>): AsyncIterable<string[]> {
  const decoder = new StringDecoder('utf8');
  let pending: string[] = [];
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (!text.includes('\n')) {
      pending.push(text);
      continue;
    }
    const lines = text.split('\n');
    pending.push(lines[0]!);
    lines[0] = pending.join('');
    pending = [lines.pop()!];
    yield lines;
  }
  const last = pending.join('') + decoder.end();
  if (last.length > 0) yield [last];
}

/** Opens an NDJSON file, plain or gzip (detected by content, not by name). */
export async function openNdjson(file: string): Promise<NdjsonSource> {
  const { size, gzip } = await inspect(file);
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  return {
    totalBytes: size,
    bytesRead: () => raw.bytesRead,
    async *lines() {
      try {
        if (!gzip) {
          yield* splitLines(raw);
          return;
        }
        const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
        raw.on('error', (error) => gunzip.destroy(error));
        yield* splitLines(raw.pipe(gunzip));
      } finally {
        raw.destroy();
      }
    },
  };
}
