// enrich generate: a deterministic synthetic AU/NZ data set as NDJSON.
import type { Command } from 'commander';
import { wholeNumber } from './options.js';
import { progressBar } from './progress.js';

export function registerGenerate(program: Command) {
  program
    .command('generate')
    .description('write DIR/companies.ndjson and DIR/people.ndjson (or .ndjson.gz), deterministic for a seed')
    .requiredOption('--companies <n>', 'number of companies', wholeNumber(1))
    .requiredOption('--people <n>', 'number of people', wholeNumber(0))
    .option('--seed <n>', 'seed', wholeNumber(0), 1)
    .option(
      '--id-start <n>',
      "number the records from N (default: the seed's block, (seed mod 10000) × 10^8); sets whose numbers do not overlap share no id, domain, slug or e-mail",
      wholeNumber(0),
    )
    .requiredOption('--out <dir>', 'output directory')
    .option('--gzip', 'write companies.ndjson.gz and people.ndjson.gz (enrich import reads either)')
    .action(async (opts) => {
      const { writeDataset } = await import('../generate/index.js');
      const bar = progressBar('generate', 'records');
      const started = Date.now();
      const result = await writeDataset({
        companies: opts.companies,
        people: opts.people,
        seed: opts.seed,
        idStart: opts.idStart,
        out: opts.out,
        gzip: opts.gzip ?? false,
        onProgress: (done: number, total: number) => bar.update(done, total),
      }).finally(() => bar.stop());
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(
        `${result.companies} companies and ${result.people} people written to ${result.files.join(', ')} in ${seconds.toFixed(1)} s (record numbers from ${result.idStart})\n`,
      );
    });
}
