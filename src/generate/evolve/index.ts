// enrich evolve: the next snapshot of a generated set, as months of a labour market would make it, and the
// events a snapshot refresh from one to the other must produce.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { addMonths, monthText, readStart, writeManifest } from './calendar.js';
import { type Evolution, evolveCompanies } from './companies.js';
import { EventsById } from './events-by-id.js';
import { type DataFile, findDataFile, LineWriter } from './ndjson-files.js';
import { evolvePeople } from './people.js';
import { runSeed } from './streams.js';

export interface EvolveOptions {
  /** A data set as `enrich generate` (or a previous evolve) wrote it. */
  in: string;
  /** Where the next snapshot goes: another directory, created if missing. */
  out: string;
  seed: number;
  /** Months to live through, 1 to MAX_MONTHS. */
  months: number;
  /** Called as the people file is read, with its bytes read so far and its size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

export interface EvolveSummary {
  /** The month the new snapshot describes, "YYYY-MM". */
  asOf: string;
  companies: { read: number; written: number };
  people: { read: number; written: number };
  /** Expected events by type. */
  events: Record<string, number>;
  files: string[];
}

export const MAX_MONTHS = 120;
export const EXPECTED_CHANGES = 'expected-changes.ndjson';

function check(opts: EvolveOptions): void {
  if (!Number.isSafeInteger(opts.seed)) throw new RangeError(`seed must be a safe integer, got ${opts.seed}`);
  if (!Number.isInteger(opts.months) || opts.months < 1 || opts.months > MAX_MONTHS) {
    throw new RangeError(`months must be a whole number from 1 to ${MAX_MONTHS}, got ${opts.months}`);
  }
  if (path.resolve(opts.in) === path.resolve(opts.out)) {
    throw new RangeError('the output directory must not be the input directory: it is read while written');
  }
}

/** Opens DIR2's file for an input file, in the same form (plain or gzip); the other form, if there, goes. */
async function outputFor(dir: string, input: DataFile): Promise<{ file: string; writer: LineWriter }> {
  const name = path.basename(input.file);
  const other = input.gzip ? name.replace(/\.gz$/, '') : `${name}.gz`;
  await rm(path.join(dir, other), { force: true });
  const file = path.join(dir, name);
  return { file, writer: new LineWriter(file, input.gzip) };
}

/**
 * Evolves the set in `opts.in` by `opts.months` months into `opts.out`, deterministic for the seed.
 * @example await evolveDataset({ in: 'data/demo', out: 'data/demo-next', seed: 1, months: 1 })
 */
export async function evolveDataset(opts: EvolveOptions): Promise<EvolveSummary> {
  check(opts);
  const start = await readStart(opts.in);
  const companiesIn = await findDataFile(opts.in, 'companies');
  const peopleIn = await findDataFile(opts.in, 'people');
  await mkdir(opts.out, { recursive: true });
  const run: Evolution = { seed: runSeed(opts.seed, start.asOf), months: opts.months, asOf: start.asOf };

  const companiesOut = await outputFor(opts.out, companiesIn);
  const world = await evolveCompanies(run, companiesIn, companiesOut.writer, start.nextCompanyNumber).finally(
    () => companiesOut.writer.close(),
  );
  const companyEvents = new EventsById(opts.out);
  for (const [id, events] of world.events) companyEvents.add(id, events);

  const peopleOut = await outputFor(opts.out, peopleIn);
  const personEvents = new EventsById(opts.out);
  const people = await evolvePeople(
    { ...run, ...world },
    peopleIn,
    peopleOut.writer,
    start.nextPersonNumber,
    (id, events) => personEvents.add(id, events),
    opts.onProgress,
  ).finally(() => peopleOut.writer.close());

  const expectedFile = path.join(opts.out, EXPECTED_CHANGES);
  const expected = new LineWriter(expectedFile, false);
  try {
    await companyEvents.writeTo(expected);
    await personEvents.writeTo(expected);
  } finally {
    await expected.close();
  }
  const asOf = monthText(addMonths(start.asOf, opts.months));
  await writeManifest(opts.out, {
    as_of: asOf,
    next_company_number: world.nextNumber,
    next_person_number: people.nextNumber,
  });
  return {
    asOf,
    companies: { read: world.read, written: world.written },
    people: { read: people.read, written: people.written },
    events: Object.fromEntries([...companyEvents.counts, ...personEvents.counts]),
    files: [companiesOut.file, peopleOut.file, expectedFile],
  };
}
