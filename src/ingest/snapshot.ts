// A snapshot refresh (`enrich import ENTITY FILE… --snapshot`): the files are the entity's complete new
// state. Records are upserted as any import (unchanged ones neither rewritten nor logged), then the records
// the files no longer hold are removed, all in one transaction at the end (logged with reason `snapshot`).

import { classifyChange } from '../changes/classify.js';
import { SuppressionFilter } from '../privacy/suppression.js';
import type { RecordStore } from '../store/records.js';
import type { SuppressionStore } from '../store/suppression.js';
import type { Entity } from '../vocabulary/entities.js';
import { prepareBatches } from './batches.js';
import {
  DEFAULT_BATCH_SIZE,
  type ImportOptions,
  type ImportSummary,
  importFile,
  worthThreads,
} from './import.js';
import { knownBodies } from './known-bodies.js';
import { readFileIds } from './read-file-ids.js';

/** The share of an entity's records a refresh may remove unless forced, in percent. */
export const DEFAULT_MAX_REMOVE_PERCENT = 10;

export interface SnapshotOptions extends ImportOptions {
  /** Refuse, before anything changes, a refresh that would remove more than this percent. Default 10. */
  maxRemovePercent?: number;
  /** Remove however many the files leave out. */
  force?: boolean;
  /** Count what the refresh would do, and write nothing. */
  dryRun?: boolean;
  /**
   * Imports one file (default: importFile with these options): a caller's own progress and reports. It
   * passes `known` on to importFile.
   */
  importEach?: (file: string, known: Pick<ImportOptions, 'known'>) => Promise<ImportSummary>;
}

export interface SnapshotSummary {
  entity: Entity;
  /** Non-blank lines read, in every file. */
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Records the files no longer hold, removed (or, on a dry run, that would be). */
  removed: number;
  rejected: number;
  /** Valid records skipped because they carry a suppressed id or identifier. */
  suppressed: number;
  /** True when nothing was written. */
  dryRun: boolean;
  /** On a dry run: why the same run without --dry-run would be refused by the guard (undefined: it would go). */
  refusal?: string;
  seconds: number;
}

/** A refresh refused by the guard: nothing was changed. */
export class SnapshotRefusedError extends Error {
  override name = 'SnapshotRefusedError';

  constructor(
    readonly entity: Entity,
    readonly wouldRemove: number,
    readonly stored: number,
    readonly maxRemovePercent: number,
  ) {
    const percent = ((100 * wouldRemove) / stored).toFixed(1);
    super(
      `the snapshot would remove ${wouldRemove} of ${stored} ${entity} (${percent}%), more than --max-remove ${maxRemovePercent}%: nothing was changed. Check that the files are the complete set, or run again with --force`,
    );
  }
}

/** What importing the files would do, counted against the store without writing. */
async function countWithoutWriting(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  files: readonly string[],
  batchSize: number,
) {
  const suppression = new SuppressionFilter(await store.suppressedHashes(entity));
  const counts = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, suppressed: 0 };
  // What each id would hold by then: an id repeated in the files is compared with its previous line.
  const latest = new Map<string, string>();
  for (const file of files) {
    let read = 0;
    for await (const batch of prepareBatches(entity, file, batchSize)) {
      counts.rejected += batch.rejections.length;
      read = batch.read;
      const records = batch.records.filter((record) => !suppression.isSuppressed(record));
      counts.suppressed += batch.records.length - records.length;
      const stored = await Promise.all(
        records.map((r) => (latest.has(r.id) ? undefined : store.getRecord(entity, r.id))),
      );
      records.forEach((record, i) => {
        const before = latest.get(record.id) ?? stored[i]?.body ?? null;
        const { change } = classifyChange({ entity, id: record.id, before, after: record.body });
        if (change === 'created') counts.inserted++;
        else if (change === 'updated') counts.updated++;
        else counts.unchanged++;
        latest.set(record.id, record.body);
      });
    }
    counts.read += read;
  }
  return counts;
}

/**
 * Refreshes an entity from files holding its complete new state. The guard counts the removals first,
 * from the ids the files name, and refuses before anything changes. Then each file is imported (a record
 * present before and after is only ever replaced: every lookup finds it throughout), and the records the
 * files leave out are removed in one transaction: killed before it, the store holds the upserts done so
 * far and every old record (the same command run again finishes the refresh); never half the removals.
 * A line the import rejects keeps the stored record of the id it names.
 * @example await refreshSnapshot(store, 'people', ['people.ndjson'], { maxRemovePercent: 5 })
 */
export async function refreshSnapshot(
  store: RecordStore & SuppressionStore,
  entity: Entity,
  files: readonly string[],
  opts: SnapshotOptions = {},
): Promise<SnapshotSummary> {
  const started = performance.now();
  const maxRemovePercent = opts.maxRemovePercent ?? DEFAULT_MAX_REMOVE_PERCENT;
  // A large file's ids are read on a thread of their own while this one reads the store's ids and, but for a
  // dry run, its bodies' hashes (the ids the files repeat are excepted from them once known).
  const reading = readFileIds(files, await worthThreads(files));
  const [{ absent, stored, repeated }, bodies] = await Promise.all([
    reading.compare(store.exportIds(entity)),
    opts.dryRun ? undefined : knownBodies(store, entity),
  ]);
  const guard =
    !opts.force && absent.length > 0 && (100 * absent.length) / stored > maxRemovePercent
      ? new SnapshotRefusedError(entity, absent.length, stored, maxRemovePercent)
      : undefined;
  // A dry run counts what the refresh would do even when the guard would refuse it, and says so.
  if (guard && !opts.dryRun) throw guard;
  const seconds = () => (performance.now() - started) / 1000;
  if (opts.dryRun) {
    const batchSize = Math.max(1, Math.floor(opts.batchSize ?? DEFAULT_BATCH_SIZE));
    const counts = await countWithoutWriting(store, entity, files, batchSize);
    const refusal = guard?.message.replace(': nothing was changed', '');
    return { entity, ...counts, removed: absent.length, dryRun: true, refusal, seconds: seconds() };
  }
  const total = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, suppressed: 0 };
  const importEach =
    opts.importEach ??
    ((file: string, known: Pick<ImportOptions, 'known'>) =>
      importFile(store, entity, file, { ...opts, ...known }));
  // Lines the same as a stored body are skipped unread: most of a refresh.
  const known = { known: bodies && { ...bodies, except: repeated } };
  for (const file of files) {
    const summary = await importEach(file, known);
    for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += summary[key];
  }
  const removed = absent.length > 0 ? await store.delete(entity, absent, 'snapshot') : 0;
  return { entity, ...total, removed, dryRun: false, seconds: seconds() };
}
