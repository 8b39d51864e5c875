// Opens the list given to `enrich match`: a file or `-` for stdin, gunzipped when its first bytes say gzip.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { startsLikeGzip } from '../lines.js';
import { ListError } from './list.js';

/** Bytes read per chunk, as for imports: per-chunk costs vanish next to per-row work. */
const CHUNK_BYTES = 1 << 20;

/** Enough for any header row: detection looks no further. */
const FIRST_LINE_BYTES = 64 * 1024;

export interface ListInput {
  /** How messages name the input: its path, or `stdin`. */
  readonly name: string;
  /** Size on disk (compressed when gzip); undefined for stdin. */
  readonly totalBytes: number | undefined;
  /** Bytes of the input read so far (compressed when gzip), comparable with totalBytes. */
  bytesRead(): number;
  /** The (decompressed) bytes, in order; iterated once. */
  chunks(): AsyncGenerator<Buffer>;
}

/**
 * Reads chunks until `enough` says the bytes so far suffice (or the stream ends), and returns those bytes
 * with the whole stream again, from its first byte.
 */
async function peek(
  chunks: AsyncIterable<Buffer>,
  enough: (head: Buffer) => boolean,
): Promise<{ head: Buffer; chunks: AsyncGenerator<Buffer> }> {
  const source = chunks[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  while (!ended && !enough(head)) {
    const next = await source.next();
    if (next.done) ended = true;
    else head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  async function* again(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (!ended) for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
  }
  return { head, chunks: again() };
}

/** zlib's errors carry codes such as Z_DATA_ERROR; a read error of the file does not. */
const isZlibError = (error: unknown) => String((error as { code?: unknown }).code).startsWith('Z_');

/** A stream's chunks, gunzipped when its first two bytes are gzip's magic number. */
async function* decompressed(raw: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const { head, chunks } = await peek(raw, (bytes) => bytes.length >= 2);
  if (!startsLikeGzip(head)) return yield* chunks;
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  const feed = async () => {
    for await (const chunk of chunks)
      if (!gunzip.write(chunk)) await new Promise((r) => gunzip.once('drain', r));
    gunzip.end();
  };
  feed().catch((error) => gunzip.destroy(error));
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } catch (error) {
    throw isZlibError(error)
      ? new ListError(`not a readable gzip file (${(error as Error).message})`)
      : error;
  }
}

/** Counts the bytes passing by, for progress. */
async function* counted(raw: Readable, count: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of raw as AsyncIterable<Buffer>) {
    count(chunk.length);
    yield chunk;
  }
}

/** Opens `input` (a path, or `-` for stdin); a missing file is a ListError naming it. */
export async function openListInput(input: string): Promise<ListInput> {
  let read = 0;
  const count = (bytes: number) => {
    read += bytes;
  };
  if (input === '-') {
    const chunks = () => decompressed(counted(process.stdin, count));
    return { name: 'stdin', totalBytes: undefined, bytesRead: () => read, chunks };
  }
  const info = await stat(input).catch(() => undefined);
  if (!info) throw new ListError(`${input}: no such file`);
  if (!info.isFile()) throw new ListError(`${input}: not a file`);
  return {
    name: input,
    totalBytes: info.size,
    bytesRead: () => read,
    async *chunks() {
      const raw = createReadStream(input, { highWaterMark: CHUNK_BYTES });
      try {
        yield* decompressed(counted(raw, count));
      } finally {
        raw.destroy();
      }
    },
  };
}

/**
 * The first line of a (decompressed) stream, decoded, without its `\n`; the bytes read to find it; and the
 * whole stream again.
 */
export async function peekFirstLine(
  chunks: AsyncIterable<Buffer>,
): Promise<{ firstLine: string; head: Buffer; chunks: AsyncGenerator<Buffer> }> {
  const peeked = await peek(chunks, (bytes) => bytes.includes(0x0a) || bytes.length >= FIRST_LINE_BYTES);
  const newline = peeked.head.indexOf(0x0a);
  const end = newline >= 0 ? newline : Math.min(peeked.head.length, FIRST_LINE_BYTES);
  return { firstLine: peeked.head.toString('utf8', 0, end), head: peeked.head, chunks: peeked.chunks };
}
