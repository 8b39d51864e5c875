// enrich import | export | delete: moving records in and out of the store (contract §7).
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ImportOptions, ImportSummary, SnapshotSummary } from '../ingest/index.js';
import { runInBackground } from '../priority.js';
import type { Entity } from '../vocabulary/entities.js';
import { collect, parseEntity, storeLocation, UsageError, withOpenStore, withStore } from './options.js';
import { progressBar } from './progress.js';

const MB = 1024 * 1024;

/** --max-remove: a percentage from 0 to 100. */
function percent(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
    throw new UsageError(`--max-remove: expected a percentage from 0 to 100, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** --priority: low or normal. */
function priority(value: string): 'low' | 'normal' {
  if (value !== 'low' && value !== 'normal') {
    throw new UsageError(`--priority: expected low or normal, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A file's import as --json prints it. */
const importJson = (entity: Entity, file: string, s: ImportSummary) => ({
  file,
  entity,
  inserted: s.inserted,
  updated: s.updated,
  unchanged: s.unchanged,
  removed: 0,
  rejected: s.rejected,
  suppressed: s.suppressed,
  read: s.read,
  seconds: Number(s.seconds.toFixed(3)),
});

/** A snapshot refresh as --json prints it. */
const snapshotJson = (s: SnapshotSummary) => ({
  entity: s.entity,
  snapshot: true,
  dry_run: s.dryRun,
  ...(s.dryRun ? { would_refuse: s.refusal ?? null } : {}),
  inserted: s.inserted,
  updated: s.updated,
  unchanged: s.unchanged,
  removed: s.removed,
  rejected: s.rejected,
  suppressed: s.suppressed,
  read: s.read,
  seconds: Number(s.seconds.toFixed(3)),
});

/** A snapshot refresh's summary line. */
function snapshotLine(s: SnapshotSummary): string {
  const suppressed = s.suppressed > 0 ? `, ${s.suppressed} suppressed` : '';
  const what = s.dryRun ? 'snapshot dry run (nothing written): would be' : 'snapshot refreshed:';
  return `${s.entity} ${what} ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged, ${s.removed} removed, ${s.rejected} rejected${suppressed} of ${s.read} lines in ${s.seconds.toFixed(1)} s`;
}

export function registerData(program: Command) {
  withStore(program.command('import'))
    .description(
      'import NDJSON (optionally gzip) files; upserts by id, or with --snapshot makes the entity exactly the files; exit 1 if any line was rejected',
    )
    .argument('<entity>', 'people or companies', parseEntity)
    .argument('<files...>', 'NDJSON files, one record per line')
    .option(
      '--no-space-check',
      'import even when the free space beside the SQLite store is less than the estimate (4 × the NDJSON)',
    )
    .option('--snapshot', 'the files are the complete new state: remove the records they leave out')
    .option(
      '--max-remove <pct>',
      'with --snapshot: refuse, before changing anything, to remove more than this percent of the entity',
      percent,
      10,
    )
    .option('--force', 'with --snapshot: remove however many the files leave out')
    .option('--dry-run', 'with --snapshot: count what the refresh would do and write nothing')
    .option('--json', 'print the counts as JSON (one object a file; one for a whole --snapshot)')
    .option(
      '--priority <priority>',
      "low (default): yield the CPU to a server on this machine (nice 19, the lowest); normal: keep the shell's",
      priority,
      'low',
    )
    .action(async (entity: Entity, files: string[], opts) => {
      if (opts.priority === 'low') runInBackground();
      const { importFile, limitHeapGrowth, refreshSnapshot } = await import('../ingest/index.js');
      limitHeapGrowth();
      const report = await import('./import-report.js');
      if (!opts.snapshot && (opts.force || opts.dryRun || opts.maxRemove !== 10)) {
        throw new UsageError('--max-remove, --force and --dry-run go with --snapshot');
      }
      // Every path checked first: a mistyped one is refused before anything is imported.
      for (const file of files) await report.checkImportable(file);
      // A CSV, a JSON array or binary data: refused at once with what to do, rather than a line error a line.
      for (const file of files) await report.checkKind(file, entity);
      const { dbPath, databaseUrl } = storeLocation(opts);
      const local = databaseUrl ? undefined : dbPath; // PostgreSQL's disk is the server's, not told here
      if (local !== undefined && opts.spaceCheck && !opts.dryRun) await report.checkSpace(files, local);
      let rejected = 0;
      await withOpenStore(opts, async (store) => {
        const importOne = async (file: string, more: ImportOptions = {}) => {
          const n = files.indexOf(file);
          const bar = progressBar(basename(file), 'MB');
          const rejections = new report.RejectionReport(file);
          const summary = await importFile(store, entity, file, {
            ...more,
            onProgress: (p) =>
              bar.update(Math.round(p.bytesRead / MB), Math.max(1, Math.round(p.totalBytes / MB))),
            onReject: (r) => rejections.add(r),
          })
            .catch(async (error: unknown) => {
              const full = await report.ranOutOfSpace(error, local);
              throw report.importFailure(file, error, files.length - n - 1, full);
            })
            .finally(() => {
              bar.stop();
              rejections.finish();
            });
          rejected += summary.rejected;
          const rate = Math.round(summary.imported / Math.max(summary.seconds, 0.001));
          // Shown only when some were, so that scripts reading the usual line keep working.
          const suppressed = summary.suppressed > 0 ? `, ${summary.suppressed} suppressed` : '';
          if (opts.json && !opts.snapshot) {
            process.stdout.write(`${JSON.stringify(importJson(entity, file, summary))}\n`);
          } else if (!opts.json) {
            process.stdout.write(
              `${file}: ${summary.imported} ${entity} imported (${summary.inserted} inserted, ${summary.updated} updated, ${summary.unchanged} unchanged), ${summary.rejected} rejected${suppressed} of ${summary.read} lines in ${summary.seconds.toFixed(1)} s (${rate}/s)\n`,
            );
          }
          const mistaken = await report.nearlyAllRejected(file, entity, summary);
          if (mistaken) process.stderr.write(`${mistaken}\n`);
          return summary;
        };
        if (!opts.snapshot) {
          for (const file of files) await importOne(file);
          return;
        }
        const summary = await refreshSnapshot(store, entity, files, {
          maxRemovePercent: opts.maxRemove,
          force: opts.force,
          dryRun: opts.dryRun,
          importEach: importOne,
        }).catch((error: unknown) => {
          throw (error as Error).name === 'SnapshotRefusedError'
            ? new UsageError((error as Error).message)
            : error;
        });
        rejected = summary.rejected;
        process.stdout.write(
          opts.json ? `${JSON.stringify(snapshotJson(summary))}\n` : `${snapshotLine(summary)}\n`,
        );
        // The counts are printed; the exit status says the real run would be refused, as it would be.
        if (summary.refusal !== undefined) {
          process.stderr.write(`enrich: without --dry-run, refused: ${summary.refusal}\n`);
          process.exitCode = 1;
        }
      });
      if (rejected > 0) process.exitCode = 1;
    });

  withStore(program.command('export'))
    .description('write every record as NDJSON, importable again unchanged')
    .argument('<entity>', 'people or companies', parseEntity)
    .option('--out <file>', 'output file (default: stdout)')
    .option('--id <id>', 'only this record, e.g. for an access request (repeatable)', collect)
    .action(async (entity: Entity, opts) => {
      const { exportTo } = await import('../ingest/index.js');
      await withOpenStore(opts, async (store) => {
        const out = opts.out ? createWriteStream(opts.out) : process.stdout;
        const ids: string[] | undefined = opts.id;
        const count = await exportTo(store, entity, out, ids);
        if (opts.out) {
          out.end();
          await finished(out);
        }
        process.stderr.write(`${count} ${entity} exported${opts.out ? ` to ${opts.out}` : ''}\n`);
        if (ids && count < new Set(ids).size)
          throw new UsageError(`${new Set(ids).size - count} id(s) were not found`);
      });
    });

  withStore(program.command('delete'))
    .description('remove records and their identifiers')
    .argument('<entity>', 'people or companies', parseEntity)
    .argument('<ids...>', 'record ids')
    .action(async (entity: Entity, ids: string[], opts) => {
      await withOpenStore(opts, async (store) => {
        const removed = await store.delete(entity, ids);
        process.stdout.write(`${removed} of ${ids.length} ${entity} deleted\n`);
        if (removed < ids.length) throw new UsageError(`${ids.length - removed} id(s) were not found`);
      });
    });
}
