// enrich usage [--key ID] [--since DATE] [--json]: metered usage per key, day and operation.
import type { Command } from 'commander';
import { COUNTERS, monthStart, sumUsage } from '../accounting/usage-report.js';
import { knownKey } from './key-report.js';
import { calendarDay, withReportStore, withStore } from './options.js';
import { formatTable } from './table.js';

export function registerUsage(program: Command) {
  withStore(program.command('usage'))
    .description('usage per key, UTC day and operation: requests and their outcomes')
    .option('--key <id>', 'one key only')
    .option('--since <date>', 'first day, YYYY-MM-DD (default: the first of this month)', calendarDay)
    .option('--json', 'print JSON: {since, rows, totals}')
    .action(async (opts) => {
      const since: string = opts.since ?? monthStart(new Date());
      await withReportStore(opts, async (store) => {
        if (opts.key !== undefined) await knownKey(store, opts.key);
        const rows = await store.usage({ keyId: opts.key, since });
        const totals = sumUsage(rows);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ since, rows, totals }, null, 2)}\n`);
          return;
        }
        const counts = (c: typeof totals) => COUNTERS.map((name) => String(c[name]));
        process.stdout.write(
          formatTable(
            ['DAY', 'KEY', 'OPERATION', ...COUNTERS.map((c) => c.toUpperCase().replace('_', ' '))],
            [
              ...rows.map((r) => [r.day, r.key_id, r.operation, ...counts(r)]),
              ['total', '', '', ...counts(totals)],
            ],
          ),
        );
      });
    });
}
