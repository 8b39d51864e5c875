// enrich audit --record ID | --key ID [--since DATE] [--json]: who looked a record up, what a key looked up;
// newest first, since the latest lookups are the ones asked about.
import type { Command } from 'commander';
import { knownKey } from './key-report.js';
import { calendarDay, wholeNumber, withReportStore, withStore } from './options.js';
import { formatTable } from './table.js';

const DEFAULT_LIMIT = 10_000;

export function registerAudit(program: Command) {
  withStore(program.command('audit'))
    .description(
      'audited lookups, newest first: who looked a record up (--record), or what a key looked up (--key)',
    )
    .option('--record <id>', 'lookups that disclosed this record id')
    .option('--key <id>', "this key's lookups")
    .option('--since <date>', 'first day, YYYY-MM-DD', calendarDay)
    .option('--limit <n>', `at most this many entries, the newest (default ${DEFAULT_LIMIT})`, wholeNumber(1))
    .option('--json', 'print a JSON array')
    .action(async (opts, command: Command) => {
      if (opts.record === undefined && opts.key === undefined) {
        command.error('error: give --record ID, --key ID or both');
      }
      const limit: number = opts.limit ?? DEFAULT_LIMIT;
      await withReportStore(opts, async (store) => {
        if (opts.key !== undefined) await knownKey(store, opts.key);
        const names = new Map((await store.listKeys()).map((k) => [k.id, k.name]));
        const entries = (
          await store.audit({
            recordId: opts.record,
            keyId: opts.key,
            since: opts.since,
            limit,
            newestFirst: true,
          })
        ).map((e) => ({ ...e, key_name: names.get(e.key_id) ?? null }));
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        } else if (entries.length === 0) {
          process.stdout.write('No audited lookups match.\n');
        } else {
          const rows = entries.map((e) => [
            e.at,
            e.key_id,
            e.key_name ?? '?',
            e.operation,
            String(e.status),
            e.params.join(',') || '-',
            e.matched.join(',') || '-',
          ]);
          process.stdout.write(
            formatTable(['TIME', 'KEY', 'NAME', 'OPERATION', 'STATUS', 'PARAMETERS', 'MATCHED'], rows),
          );
        }
        if (entries.length === limit)
          process.stderr.write(`Showing the newest ${limit}; use --limit for more.\n`);
      });
    });
}
