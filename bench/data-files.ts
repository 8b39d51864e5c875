// The generated data set for a size: made in the run's temp dir, or kept in and reused from a cache dir.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evolve, generate, type Sizes } from './enrich.js';
import { say } from './log.js';

export interface DataFiles {
  people: string;
  companies: string;
}

/** Generation runs at roughly 10,000 records a second here; a millisecond each is ample headroom. */
const generateTimeoutMs = (sizes: Sizes) => 60_000 + (sizes.people + sizes.companies);

const datasetDir = (sizes: Sizes, root: string, gzip: boolean) =>
  path.join(
    root,
    `people-${sizes.people}-companies-${sizes.companies}-seed-${sizes.seed}${gzip ? '-gz' : ''}`,
  );

/** True when `cacheDir` holds a complete data set of `sizes`. */
export const isCached = (cacheDir: string, sizes: Sizes, gzip = false) =>
  existsSync(path.join(datasetDir(sizes, cacheDir, gzip), '.complete'));

/**
 * The NDJSON files for `sizes`: from `cacheDir` when a complete set is there, else freshly generated;
 * gzip-compressed with `gzip` (a fifth of the disk, for data sets that would not fit beside their store).
 */
export async function obtainDataset(
  sizes: Sizes,
  workDir: string,
  cacheDir?: string,
  gzip = false,
): Promise<DataFiles> {
  const dir = datasetDir(sizes, cacheDir ?? workDir, gzip);
  const complete = path.join(dir, '.complete');
  const suffix = gzip ? '.ndjson.gz' : '.ndjson';
  const files = {
    people: path.join(dir, `people${suffix}`),
    companies: path.join(dir, `companies${suffix}`),
  };
  if (cacheDir && existsSync(complete)) {
    say(`data set: reusing ${dir}`);
    return files;
  }
  const started = performance.now();
  say(
    `data set: generating ${sizes.people.toLocaleString('en')} people, ${sizes.companies.toLocaleString('en')} companies`,
  );
  await generate(dir, sizes, generateTimeoutMs(sizes), gzip);
  writeFileSync(complete, '');
  say(`data set: generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return files;
}

/**
 * The set's next month (`enrich evolve --months 1`: about 2% of its people changed), for a snapshot refresh:
 * beside the set in `cacheDir` and reused from there, else made in `workDir`. Returns the people file.
 */
export async function obtainNextMonth(
  files: DataFiles,
  sizes: Sizes,
  workDir: string,
  cacheDir?: string,
  gzip = false,
): Promise<string> {
  const dir = `${datasetDir(sizes, cacheDir ?? workDir, gzip)}-next-month`;
  const complete = path.join(dir, '.complete');
  const people = path.join(dir, path.basename(files.people));
  if (cacheDir && existsSync(complete)) {
    say(`next month: reusing ${dir}`);
    return people;
  }
  const started = performance.now();
  say(`next month: evolving ${sizes.people.toLocaleString('en')} people`);
  await evolve(path.dirname(files.people), dir, sizes.people);
  writeFileSync(complete, '');
  say(`next month: evolved in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return people;
}
