// enrich evolve: the next snapshot of a generated set, and the change events a refresh to it must produce.
import type { Command } from 'commander';
import { wholeNumber } from './options.js';
import { progressBar } from './progress.js';

const MB = 1024 * 1024;

export function registerEvolve(program: Command) {
  program
    .command('evolve')
    .description(
      'write the next snapshot of a generated set, as months of a labour market would make it, and ' +
        'DIR2/expected-changes.ndjson: the events a --snapshot refresh from DIR to DIR2 must produce',
    )
    .requiredOption('--in <dir>', 'the data set (companies.ndjson and people.ndjson, or .ndjson.gz)')
    .requiredOption('--out <dir>', 'output directory (another one), written in the same form')
    .option('--seed <n>', 'seed', wholeNumber(0), 1)
    .option('--months <n>', 'months to live through, at most 120', wholeNumber(1), 1)
    .action(async (opts) => {
      const { evolveDataset } = await import('../generate/evolve/index.js');
      const bar = progressBar('evolve people', 'MB');
      const started = Date.now();
      const summary = await evolveDataset({
        in: opts.in,
        out: opts.out,
        seed: opts.seed,
        months: opts.months,
        onProgress: (done, total) => bar.update(Math.round(done / MB), Math.round(total / MB)),
      }).finally(() => bar.stop());
      const count = (type: string) => summary.events[type] ?? 0;
      const total = Object.values(summary.events).reduce((a, b) => a + b, 0);
      const entity = (name: string, prefix: string, counts: { read: number; written: number }) =>
        `${counts.read} → ${counts.written} ${name} (${count(`${prefix}.created`)} created, ` +
        `${count(`${prefix}.updated`)} updated, ${count(`${prefix}.removed`)} removed)`;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `${opts.in} evolved ${opts.months} month${opts.months === 1 ? '' : 's'} to ${summary.asOf} in ${opts.out}: ` +
          `${entity('companies', 'company', summary.companies)}, ${entity('people', 'person', summary.people)}; ` +
          `${count('person.job_changed')} job changes, ${count('person.title_changed')} title changes; ` +
          `${total} expected events in ${summary.files[2]} in ${seconds} s\n`,
      );
    });
}
