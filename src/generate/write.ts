// Writes a data set as two NDJSON files, streaming with backpressure.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { generateCompanies } from './company-record.js';
import { firstNumber } from './numbering.js';
import { generatePeople } from './person.js';

export interface DatasetOptions {
  companies: number;
  people: number;
  seed: number;
  /** The first record number (ids, domains, slugs and e-mails are minted from numbers); default: the seed's block. */
  idStart?: number;
  /** Directory for `companies.ndjson` and `people.ndjson`; created if missing. */
  out: string;
  /** Write `companies.ndjson.gz` and `people.ndjson.gz` instead (`enrich import` reads either). */
  gzip?: boolean;
  /** Called now and then, and once at the end, with records written so far out of all. */
  onProgress?: (done: number, total: number) => void;
}

export interface DatasetSummary {
  companies: number;
  people: number;
  /** The first record number used. */
  idStart: number;
  files: string[];
}

/** Lines are joined into chunks of about this many characters before they reach the stream. */
const CHUNK_CHARS = 256 * 1024;
const PROGRESS_EVERY = 10_000;

function* ndjsonChunks(records: Iterable<unknown>, onRecord: () => void): Generator<string> {
  let chunk = '';
  for (const record of records) {
    chunk += `${JSON.stringify(record)}\n`;
    onRecord();
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

async function writeNdjson(
  file: string,
  records: Iterable<unknown>,
  onRecord: () => void,
  gzip: boolean,
): Promise<void> {
  // Readable.from pulls the next chunk only when the file stream has room: that is the backpressure.
  const chunks = Readable.from(ndjsonChunks(records, onRecord), { objectMode: false });
  // Level 1: a fifth of the size for little CPU, compressed on libuv's threads beside the generator.
  if (gzip) await pipeline(chunks, createGzip({ level: 1 }), createWriteStream(file));
  else await pipeline(chunks, createWriteStream(file));
}

/**
 * Generates a data set into `out`, deterministic for `seed`.
 * @example await writeDataset({ companies: 1000, people: 10_000, seed: 1, out: 'data/demo' })
 */
export async function writeDataset(opts: DatasetOptions): Promise<DatasetSummary> {
  const { companies, people, seed, idStart } = opts;
  const total = companies + people;
  let done = 0;
  const onRecord = () => {
    done++;
    if (done % PROGRESS_EVERY === 0) opts.onProgress?.(done, total);
  };
  await mkdir(opts.out, { recursive: true });
  const suffix = opts.gzip ? '.ndjson.gz' : '.ndjson';
  const files = [path.join(opts.out, `companies${suffix}`), path.join(opts.out, `people${suffix}`)] as const;
  const gzip = opts.gzip ?? false;
  await writeNdjson(files[0], generateCompanies({ companies, seed, idStart }), onRecord, gzip);
  await writeNdjson(files[1], generatePeople({ companies, people, seed, idStart }), onRecord, gzip);
  opts.onProgress?.(done, total);
  return { companies, people, idStart: firstNumber(seed, idStart), files: [...files] };
}
