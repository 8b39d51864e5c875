// Imports an NDJSON file (plain or gzip) into a store in batches; bad lines are reported, good ones kept.
import { availableParallelism } from 'node:os';
import { SuppressionFilter } from '../privacy/suppression.js';
import { committedOf } from '../store/committed.js';
import { noneCounted, type RecordStore, type RecordToStore, type UpsertCounts } from '../store/records.js';
import type { SuppressionStore } from '../store/suppression.js';
import type { Entity } from '../vocabulary/entities.js';
import { type PreparedBatch, prepareBatches, type Rejection } from './batches.js';
import { ImportInterruptedError } from './interrupted.js';
import type { KnownBodiesData } from './known-bodies.js';
import { inspectNdjson } from './lines.js';
import { prepareBatchesInWorker } from './worker-batches.js';

export type { Rejection } from './batches.js';

export interface ImportProgress {
  /** Lines seen so far, blank ones included. */
  lines: number;
  bytesRead: number;
  totalBytes: number;
}

export interface ImportSummary {
  /** Non-blank lines read. */
  read: number;
  /** Records taken: `inserted` + `updated` + `unchanged`. */
  imported: number;
  /** Records whose id was not in the store (nor earlier in the file). */
  inserted: number;
  /** Records that replaced one with their id with other content: in the store, or earlier in the file. */
  updated: number;
  /** Records whose content was on file already: not rewritten, no change logged. */
  unchanged: number;
  rejected: number;
  /** Valid records skipped because they carry a suppressed id or identifier. */
  suppressed: number;
  seconds: number;
}

export interface ImportOptions {
  /**
   * Records per transaction into an empty store (a bulk load), and per batch read otherwise, written at most
   * UPSERT_TRANSACTION to a transaction; each transaction is wholly in or wholly out. Default 1,000.
   */
  batchSize?: number;
  /**
   * Parse in worker threads while this one writes. Default: with more than one core, for a file of
   * PARSE_THREADS_FROM or more (parseThreads).
   */
  worker?: boolean;
  onProgress?: (progress: ImportProgress) => void;
  onReject?: (rejection: Rejection) => void;
  /**
   * The store's bodies (knownBodies): a line identical to one is counted unchanged without being parsed.
   * For a refresh, whose files name each id once but for the ids `known` excepts.
   */
  known?: KnownBodiesData;
}

/**
 * 1,000 rather than 5,000: every thread holds a batch or two at a time, and V8 lets a heap grow to a multiple
 * of what it holds; at 5,000 the importer's peak RSS was 1.2–1.5 GB at 100,000 people, at 1,000 about 660 MB
 * (BENCHMARKS.md, issue 24), and the import was no slower.
 */
export const DEFAULT_BATCH_SIZE = 1000;

/**
 * Records per transaction into a store that already holds records (a refresh's changed records, an import
 * on top of others): from 1,000 up to 3,000, as many as take about TRANSACTION_MS. A transaction's cost is
 * mostly the pages it dirties, and a job change moves six of a person's identifiers, each to a page of its
 * own: 1,000 changed people rewrote most of the identifier index of 100,000, and 3,000 hardly more. A
 * refresh of 20,000 changed people among 100,000 took 14 s rather than 18–23 s; among 1,000,000, where each
 * record costs more and about 2,000 fit, 38–47 s rather than 43–53 s (BENCHMARKS.md, issue 20). A
 * transaction holds SQLite's write lock, which a server's own writes wait for up to 5 s; and its job changes
 * go to webhook endpoints together, the last of them after the others (5,000 a transaction made no faster
 * refresh). Events are stamped when a transaction ends (src/store/sqlite/record-writes.ts), so its length
 * does not delay them.
 */
export const UPSERT_TRANSACTION = { least: 1000, most: 3000 };
/**
 * What a write into a store that holds records should take, in milliseconds: SQLite's transaction (which holds
 * its write lock) and the serving index's after it (which does not), about three quarters and a quarter.
 */
export const TRANSACTION_MS = 2500;

/** The next transaction's size: as many records as `took` milliseconds for `records` say fit TRANSACTION_MS. */
export function nextTransactionSize(records: number, took: number): number {
  const fits = Math.round((records * TRANSACTION_MS) / Math.max(took, 1));
  return Math.max(UPSERT_TRANSACTION.least, Math.min(UPSERT_TRANSACTION.most, fits));
}

/**
 * Bytes of NDJSON (a gzip file's counted at GZIP_RATIO) from which parse threads pay for their start-up: each
 * loads its modules for a few hundred milliseconds of a core the writer needs. Measured on 2 cores, one
 * thread against two parse threads: 10,000 people (20 MB) 1.3 s against 1.7–1.8 s, 30,000 (61 MB) 2.8–2.9 s
 * against 3.3–3.4 s; 100,000 (203 MB) 9.8 s against 9.0 s.
 */
export const PARSE_THREADS_FROM = 64 * 1024 * 1024;
/** How much larger an NDJSON file is than its gzip (`enrich generate --gzip`: about five times). */
const GZIP_RATIO = 5;

/** Whether a file is large enough for parse threads, on a machine of `cores`. */
export const parseThreads = ({ size, gzip }: { size: number; gzip: boolean }, cores: number): boolean =>
  cores > 1 && size * (gzip ? GZIP_RATIO : 1) >= PARSE_THREADS_FROM;

/**
 * Whether files this large, together, are worth threads of their own on this machine (parseThreads): for an
 * import's parsing, and for a refresh's reading of its files' ids. A file that cannot be read counts as
 * empty; reading it fails later, as it always has.
 */
export async function worthThreads(files: readonly string[]): Promise<boolean> {
  let size = 0;
  let gzip = false;
  for (const file of files) {
    const kind = await inspectNdjson(file).catch(() => ({ size: 0, gzip: false }));
    size += kind.size;
    gzip ||= kind.gzip;
  }
  return parseThreads({ size, gzip }, availableParallelism());
}

/** Adds a batch's counts (none when a failure committed nothing) to the file's. */
function addCounts(total: UpsertCounts, batch: UpsertCounts | undefined): void {
  total.inserted += batch?.inserted ?? 0;
  total.updated += batch?.updated ?? 0;
  total.unchanged += batch?.unchanged ?? 0;
}

/**
 * Upserts every valid line of `file` by id; a later line with the same id wins. A failure part-way (a
 * truncated gzip, the store gone) rejects with an ImportInterruptedError telling how many were committed.
 * @example const summary = await importFile(store, 'people', 'people.ndjson.gz', { onReject: console.error });
 */
export async function importFile(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  file: string,
  opts: ImportOptions = {},
): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? DEFAULT_BATCH_SIZE));
  // A file that cannot be read fails below, when its lines are read, as it always has.
  const useWorker = opts.worker ?? (await worthThreads([file]));
  // Read once: suppressions are few, and one added during an import applies from the next one.
  const suppression = new SuppressionFilter(await store.suppressedHashes(entity));
  const batches = useWorker
    ? prepareBatchesInWorker(entity, file, batchSize, { known: opts.known })
    : prepareBatches(entity, file, batchSize, undefined, opts.known);
  let last: PreparedBatch | undefined;
  const counts = noneCounted();
  let rejected = 0;
  let suppressed = 0;
  // Into an empty entity: records only, indexes built once at the end (SQLite).
  const bulk = await store.beginBulkLoad?.(entity);
  let failure: { cause: unknown } | undefined;
  // A bulk load's records are written a batch at a time, and so are those of a caller that chose a batch
  // size. Into a store that holds records, a refresh's batches (mostly unchanged lines, skipped unread) are
  // gathered into transactions of `transaction` records: fewer commits and FTS segments.
  const fixed = bulk !== undefined || opts.batchSize !== undefined;
  let transaction = fixed ? batchSize : UPSERT_TRANSACTION.least;
  const pending: RecordToStore[] = [];
  /** Writes the first `n` pending records in one transaction. */
  const write = async (n: number) => {
    const records = pending.splice(0, n);
    try {
      if (bulk) addCounts(counts, await bulk.upsert(records));
      else {
        const begun = performance.now();
        addCounts(counts, await store.upsert(entity, records));
        if (!fixed) transaction = nextTransactionSize(records.length, performance.now() - begun);
      }
    } catch (error) {
      // The store of record may have committed the batch before the failure (see store/committed.ts).
      addCounts(counts, committedOf(error) as UpsertCounts | undefined);
      throw error;
    }
  };
  try {
    for await (const batch of batches) {
      for (const rejection of batch.rejections) opts.onReject?.(rejection);
      rejected += batch.rejections.length;
      counts.unchanged += batch.unchanged;
      for (const record of batch.records) {
        if (suppression.isSuppressed(record)) suppressed++;
        else pending.push(record);
      }
      while (pending.length >= transaction) await write(transaction);
      opts.onProgress?.({ lines: batch.lines, bytesRead: batch.bytesRead, totalBytes: batch.totalBytes });
      last = batch;
    }
    while (pending.length > 0) await write(transaction);
  } catch (error) {
    failure = { cause: error };
  }
  // Building a bulk load's indexes can fail too (a full disk): its batches are committed all the same.
  try {
    await bulk?.finish();
  } catch (error) {
    failure ??= { cause: error };
  }
  const imported = counts.inserted + counts.updated + counts.unchanged;
  if (failure) throw new ImportInterruptedError(imported, failure);
  const seconds = (performance.now() - started) / 1000;
  return {
    read: last?.read ?? 0,
    imported,
    ...counts,
    rejected,
    suppressed,
    seconds,
  };
}
