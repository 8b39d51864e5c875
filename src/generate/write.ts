// Writes a data set as two NDJSON files, streaming with backpressure.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { generateCompanies } from './company-record.js';
import { generatePeople } from './person.js';

export interface DatasetOptions {
  companies: number;
  people: number;
  seed: number;
  /** Directory for `companies.ndjson` and `people.ndjson`; created if missing. */
  out: string;
  /** Called now and then, and once at the end, with records written so far out of all. */
  onProgress?: (done: number, total: number) => void;
}

export interface DatasetSummary {
  companies: number;
  people: number;
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

async function writeNdjson(file: string, records: Iterable<unknown>, onRecord: () => void): Promise<void> {
  // Readable.from pulls the next chunk only when the file stream has room: that is the backpressure.
  await pipeline(
    Readable.from(ndjsonChunks(records, onRecord), { objectMode: false }),
    createWriteStream(file),
  );
}

/**
 * Generates a data set into `out`, deterministic for `seed`.
 * @example await writeDataset({ companies: 1000, people: 10_000, seed: 1, out: 'data/demo' })
 */
export async function writeDataset(opts: DatasetOptions): Promise<DatasetSummary> {
  const { companies, people, seed } = opts;
  const total = companies + people;
  let done = 0;
  const onRecord = () => {
    done++;
    if (done % PROGRESS_EVERY === 0) opts.onProgress?.(done, total);
  };
  await mkdir(opts.out, { recursive: true });
  const files = [path.join(opts.out, 'companies.ndjson'), path.join(opts.out, 'people.ndjson')] as const;
  await writeNdjson(files[0], generateCompanies({ companies, seed }), onRecord);
  await writeNdjson(files[1], generatePeople({ companies, people, seed }), onRecord);
  opts.onProgress?.(done, total);
  return { companies, people, files: [...files] };
}
