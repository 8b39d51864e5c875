import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDataset } from '../../src/generate/index.js';

const root = mkdtempSync(path.join(tmpdir(), 'enrich-generate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const lines = (file: string) => readFileSync(file, 'utf8').split('\n');

describe('writeDataset', () => {
  it('writes companies.ndjson and people.ndjson with the requested counts', async () => {
    const out = path.join(root, 'nested', 'set');
    const progress: [number, number][] = [];
    const result = await writeDataset({
      companies: 120,
      people: 25_000,
      seed: 3,
      out,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(result).toEqual({
      companies: 120,
      people: 25_000,
      idStart: 300_000_000,
      files: [path.join(out, 'companies.ndjson'), path.join(out, 'people.ndjson')],
    });
    const [companies, people] = result.files.map(lines) as [string[], string[]];
    // Every line ends in \n, so the text splits into the records plus one empty tail.
    expect(companies.length - 1).toBe(120);
    expect(people.length - 1).toBe(25_000);
    expect([companies.at(-1), people.at(-1)]).toEqual(['', '']);
    expect(JSON.parse(people[0]!).id).toMatch(/^fp\d{12}$/);
    expect(progress.at(-1)).toEqual([25_120, 25_120]);
    expect(progress.length).toBeGreaterThan(1);
  });

  it('writes the same records gzip-compressed with gzip, as .ndjson.gz', async () => {
    const plain = await writeDataset({ companies: 10, people: 50, seed: 4, out: path.join(root, 'plain') });
    const zipped = await writeDataset({
      companies: 10,
      people: 50,
      seed: 4,
      out: path.join(root, 'gz'),
      gzip: true,
    });
    expect(zipped.files).toEqual([
      path.join(root, 'gz', 'companies.ndjson.gz'),
      path.join(root, 'gz', 'people.ndjson.gz'),
    ]);
    zipped.files.forEach((file, i) => {
      expect(gunzipSync(readFileSync(file)).toString('utf8')).toBe(readFileSync(plain.files[i]!, 'utf8'));
    });
  });

  it('writes the same bytes twice for one seed', async () => {
    const a = await writeDataset({ companies: 30, people: 200, seed: 8, out: path.join(root, 'a') });
    const b = await writeDataset({ companies: 30, people: 200, seed: 8, out: path.join(root, 'b') });
    for (const [i, file] of a.files.entries()) {
      expect(readFileSync(file).equals(readFileSync(b.files[i]!)), file).toBe(true);
    }
  });

  it('writes empty files for an empty set', async () => {
    const result = await writeDataset({ companies: 0, people: 0, seed: 1, out: path.join(root, 'empty') });
    expect(result.files.map((f) => readFileSync(f, 'utf8'))).toEqual(['', '']);
  });
});
