// importFile: what is kept, what is rejected and how a rejection reads, in both threading modes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  importFile,
  nextTransactionSize,
  PARSE_THREADS_FROM,
  parseThreads,
  type Rejection,
  TRANSACTION_MS,
  UPSERT_TRANSACTION,
} from '../../src/ingest/import.js';
import { knownBodies } from '../../src/ingest/known-bodies.js';
import { MAX_RECORD_BYTES } from '../../src/ingest/prepare.js';
import { MAX_JSON_DEPTH } from '../../src/schemas/json-text.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { linkedinSlug, personId, personLine, workEmail } from './fixtures.js';

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'enrich-import-'));
  store = openSqliteStore(join(dir, 'enrich.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const fileOf = (lines: string[]) => {
  const file = join(dir, 'in.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

// Threading changes how batches travel, not what they hold (see worker-batches.test.ts).
describe.each([{ worker: true }, { worker: false }])('importFile with worker: $worker', ({ worker }) => {
  it('keeps good lines and reports each bad one with its line number and JSON path', async () => {
    const badEmail = JSON.stringify({ id: 'fp1', emails: { work: [{ value: 42 }] } });
    const rejections: Rejection[] = [];
    const file = fileOf([personLine(1), badEmail, personLine(2)]);
    const summary = await importFile(store, 'people', file, {
      worker,
      batchSize: 1,
      onReject: (r) => rejections.push(r),
    });
    expect(rejections).toEqual([
      { line: 2, path: '$.emails.work[0].value', message: 'Expected string or null' },
    ]);
    expect(summary).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(await store.count('people')).toBe(2);
    expect(await store.findIds('people', 'work_email', workEmail(2), 5)).toEqual([personId(2)]);
  });

  it('reads gzip by its content whatever the file is called', async () => {
    const file = join(dir, 'people.ndjson');
    writeFileSync(file, gzipSync(`${[1, 2, 3].map(personLine).join('\n')}\n`));
    const summary = await importFile(store, 'people', file, { worker });
    expect(summary).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    expect(await store.findIds('people', 'linkedin', linkedinSlug(3), 5)).toEqual([personId(3)]);
  });

  it("counts a refresh's stored lines unchanged and writes the others", async () => {
    await importFile(store, 'people', fileOf([1, 2, 3, 4].map(personLine)), { worker });
    const changed = JSON.stringify({ ...JSON.parse(personLine(2)), headline: 'Director' });
    const lines = [personLine(1), changed, personLine(3), personLine(4), personLine(5)];
    const known = { ...(await knownBodies(store, 'people'))!, except: [] };
    const summary = await importFile(store, 'people', fileOf(lines), { worker, known });
    expect(summary).toMatchObject({ read: 5, inserted: 1, updated: 1, unchanged: 3, rejected: 0 });
    expect(JSON.parse((await store.getRecord('people', personId(2)))!.body).headline).toBe('Director');
    expect(await store.count('people')).toBe(5);
  });

  it('reports progress up to the whole file', async () => {
    const file = fileOf(Array.from({ length: 10 }, (_, n) => personLine(n)));
    const progress: number[] = [];
    await importFile(store, 'people', file, {
      worker,
      batchSize: 3,
      onProgress: (p) => progress.push(p.bytesRead === p.totalBytes ? p.lines : -1),
    });
    expect(progress.at(-1)).toBe(10);
  });

  it('rejects a record larger than 1 MiB or nested deeper than 32 levels, naming the line, and goes on', async () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const countries = (levels: number) =>
      `{"id":"f2","nextGen":{"web_traffic":{"traffic_share":{"countries":{"AU":${nested(levels)}}}}}}`;
    const large = JSON.stringify({ id: 'f3', description: 'x'.repeat(MAX_RECORD_BYTES) });
    const rejections: Rejection[] = [];
    const file = fileOf([
      JSON.stringify({ id: 'f1' }),
      countries(200_000),
      large,
      countries(MAX_JSON_DEPTH - 5), // 5 levels down to the countries' value: 32 in all
      `${large}${large}`,
      JSON.stringify({ id: 'f4' }),
    ]);
    const summary = await importFile(store, 'companies', file, {
      worker,
      batchSize: 2,
      onReject: (r) => rejections.push(r),
    });
    expect(summary).toMatchObject({ read: 6, imported: 3, rejected: 3 });
    const path = `$.nextGen.web_traffic.traffic_share.countries.AU${'[0]'.repeat(MAX_JSON_DEPTH - 5)}`;
    expect(rejections).toEqual([
      {
        line: 2,
        path,
        message: 'Arrays and objects nest deeper than 32 levels; a record holds at most 32',
      },
      {
        line: 3,
        path: '$',
        message: 'The record is larger than 1 MiB (1,048,576 bytes); a record holds at most that',
      },
      { line: 5, path: '$', message: expect.stringMatching(/^The record is larger than 1 MiB/) },
    ]);
    expect(await store.count('companies')).toBe(3);
  });

  it('fails on a file that does not exist', async () => {
    await expect(importFile(store, 'people', join(dir, 'missing.ndjson'), { worker })).rejects.toThrow(
      /ENOENT/,
    );
  });
});

describe('importFile', () => {
  const importLines = async (lines: string[], batchSize?: number) => {
    const rejections: Rejection[] = [];
    const summary = await importFile(store, 'people', fileOf(lines), {
      worker: false,
      batchSize,
      onReject: (r) => rejections.push(r),
    });
    return { summary, rejections };
  };

  it('rejects an unknown field, naming it', async () => {
    const { rejections } = await importLines([JSON.stringify({ id: 'fp1', education: { gpa: 4 } })]);
    expect(rejections).toEqual([{ line: 1, path: '$.education.gpa', message: 'Unknown field' }]);
    expect(await store.count('people')).toBe(0);
  });

  it('rejects a value of the wrong type', async () => {
    const { rejections } = await importLines([JSON.stringify({ id: 'fp1', year_joined: '2020' })]);
    expect(rejections).toEqual([{ line: 1, path: '$.year_joined', message: 'Expected integer or null' }]);
  });

  it('rejects unparsable lines, non-objects, missing ids and malformed ids', async () => {
    const { rejections } = await importLines([
      '{"id": "fp1",',
      '[1, 2]',
      '{"name": "Jane"}',
      '{"id": "a b"}',
    ]);
    expect(rejections.map(({ line, path }) => ({ line, path }))).toEqual([
      { line: 1, path: '$' },
      { line: 2, path: '$' },
      { line: 3, path: '$.id' },
      { line: 4, path: '$.id' },
    ]);
    expect(rejections[0]?.message).toMatch(/^Invalid JSON/);
    expect(rejections[1]?.message).toBe('A record must be a JSON object');
    expect(rejections[2]?.message).toBe('id is required');
  });

  it('skips blank lines, counts them in line numbers and stores lines without CR or padding', async () => {
    const line = '{"id":"fp1","name":"Zoë"}';
    const { summary, rejections } = await importLines(['', `  ${line}\r`, '   ', '{"id":1}']);
    expect(summary).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(rejections[0]?.line).toBe(4);
    expect((await store.getRecord('people', 'fp1'))?.body).toBe(line);
  });

  it('lets the later line win when an id repeats', async () => {
    const first = JSON.stringify({ id: 'fp1', linkedin: 'https://www.linkedin.com/in/old-slug' });
    const second = JSON.stringify({ id: 'fp1', linkedin: 'https://www.linkedin.com/in/new-slug' });
    await importLines([first, personLine(2), second], 2);
    expect((await store.getRecord('people', 'fp1'))?.body).toBe(second);
    expect(await store.findIds('people', 'linkedin', 'old-slug', 5)).toEqual([]);
    expect(await store.findIds('people', 'linkedin', 'new-slug', 5)).toEqual(['fp1']);
  });

  it('reads a last line without a newline and a line across read chunks (of 1 MiB)', async () => {
    const filler = JSON.stringify({ id: 'fp1', description: 'x'.repeat(600_000) });
    const long = JSON.stringify({ id: 'fp2', description: 'x'.repeat(1_000_000) });
    const file = join(dir, 'in.ndjson');
    writeFileSync(file, `${filler}\n${long}\n${personLine(3)}`);
    const summary = await importFile(store, 'people', file, { worker: false });
    expect(summary).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    expect((await store.getRecord('people', 'fp2'))?.body).toBe(long);
    expect((await store.getRecord('people', personId(3)))?.body).toBe(personLine(3));
  });

  it('fails on a corrupt gzip file', async () => {
    const file = join(dir, 'in.ndjson.gz');
    writeFileSync(file, gzipSync(personLine(1).repeat(100)).subarray(0, 200));
    await expect(importFile(store, 'people', file, { worker: false })).rejects.toThrow();
  });

  it('imports companies with their identifiers', async () => {
    const company = JSON.stringify({ id: 'f1', fqdn: 'acme.com.au', linkedin: 'acme', nextGen: null });
    const summary = await importFile(store, 'companies', fileOf([company]), { worker: false });
    expect(summary.imported).toBe(1);
    expect(await store.findIds('companies', 'domain', 'acme.com.au', 5)).toEqual(['f1']);
  });
});

describe('importFile into a store that holds records', () => {
  const { least, most } = UPSERT_TRANSACTION;
  it(`writes ${least} to ${most} records a transaction, all of them, counted once`, async () => {
    await importFile(store, 'people', fileOf([personLine(0)]), { worker: false });
    const sizes: number[] = [];
    const upsert = store.upsert.bind(store);
    store.upsert = (entity, records) => {
      sizes.push(records.length);
      return upsert(entity, records);
    };
    const lines = Array.from({ length: 2 * most + 500 }, (_, n) => personLine(n));
    const summary = await importFile(store, 'people', fileOf(lines), { worker: false });
    expect(sizes[0]).toBe(least);
    // Each a full transaction of its size but for the file's last records.
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(least);
      expect(size).toBeLessThanOrEqual(most);
    }
    expect(sizes.reduce((a, b) => a + b)).toBe(lines.length);
    expect(summary).toMatchObject({ read: lines.length, imported: lines.length, rejected: 0 });
    expect(await store.count('people')).toBe(lines.length);
  });
});

describe('nextTransactionSize', () => {
  const { least, most } = UPSERT_TRANSACTION;
  it('sizes a transaction to take TRANSACTION_MS at the rate the last one went', () => {
    expect(nextTransactionSize(1000, TRANSACTION_MS / 2)).toBe(2000);
    expect(nextTransactionSize(3000, TRANSACTION_MS)).toBe(3000);
  });

  it(`keeps to ${least}–${most} records, however fast or slow the last one was`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (n, ms) => {
          const size = nextTransactionSize(n, ms);
          expect(size).toBeGreaterThanOrEqual(least);
          expect(size).toBeLessThanOrEqual(most);
          expect(Number.isInteger(size)).toBe(true);
        },
      ),
    );
    expect(nextTransactionSize(1000, 0)).toBe(most);
    expect(nextTransactionSize(5000, 60_000)).toBe(least);
  });
});

describe('parseThreads', () => {
  const MiB = 1024 * 1024;
  it('prepares a small file on the writing thread: parse threads take longer to start than they save', () => {
    expect(parseThreads({ size: 20 * MiB, gzip: false }, 2)).toBe(false);
    expect(parseThreads({ size: PARSE_THREADS_FROM - 1, gzip: false }, 8)).toBe(false);
  });

  it('parses a large file on threads, a gzip file counted at what it holds, given more than one core', () => {
    expect(parseThreads({ size: PARSE_THREADS_FROM, gzip: false }, 2)).toBe(true);
    expect(parseThreads({ size: 200 * MiB, gzip: false }, 1)).toBe(false);
    expect(parseThreads({ size: 20 * MiB, gzip: true }, 2)).toBe(true);
    expect(parseThreads({ size: 10 * MiB, gzip: true }, 2)).toBe(false);
  });
});
