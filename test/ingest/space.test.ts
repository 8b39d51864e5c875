import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importFailure } from '../../src/cli/import-report.js';
import { ImportInterruptedError } from '../../src/ingest/interrupted.js';
import { freeBytes, importEstimate, isDiskFull, ndjsonBytes } from '../../src/ingest/space.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-space-'));

describe('room for an import', () => {
  it('counts a file’s NDJSON bytes, through gzip by its trailer', async () => {
    const text = `${'{"id":"fp000000000001","name":"Jane Citizen"}\n'.repeat(1000)}`;
    writeFileSync(join(dir, 'plain.ndjson'), text);
    writeFileSync(join(dir, 'packed.ndjson.gz'), gzipSync(text));
    expect(await ndjsonBytes(join(dir, 'plain.ndjson'))).toBe(text.length);
    expect(await ndjsonBytes(join(dir, 'packed.ndjson.gz'))).toBe(text.length);
    expect(importEstimate(text.length)).toBe(4 * text.length);
  });

  it('reads the free space of the filesystem a store would be on, before its folder exists', async () => {
    const free = await freeBytes(join(dir, 'not', 'yet', 'enrich.db'));
    expect(free).toBeGreaterThan(0);
  });

  it.each([
    [Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' }), true],
    [Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), true],
    [Object.assign(new Error('could not extend file'), { code: '53100' }), true],
    [new Error('import interrupted', { cause: new Error('No space left on device: write page') }), true],
    [Object.assign(new Error('Input/output error'), { code: 5 }), false],
    [new Error('unexpected end of file'), false],
  ])('tells a full disk from other failures: %s', (error, full) => {
    expect(isDiskFull(error)).toBe(full);
  });
});

describe('the error of an import that failed part-way', () => {
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

  it('says how many records are in and that running it again completes it, when the disk filled', () => {
    const error = importFailure('people.ndjson', new ImportInterruptedError(15000, { cause: full }), 1, true);
    expect(error.message).toBe(
      'people.ndjson: the disk is full (database or disk is full); 15000 records of it were committed before ' +
        'the failure; the 1 file(s) after it were not imported. Free some space and run the same import again ' +
        'to complete it (records already in are updated, not duplicated)',
    );
  });

  it('does not promise that running it again helps when something else failed', () => {
    const truncated = Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
    const error = importFailure(
      'people.ndjson.gz',
      new ImportInterruptedError(5000, { cause: truncated }),
      0,
    );
    expect(error.message).toBe(
      'people.ndjson.gz: the gzip data ends early: the file is truncated; 5000 records of it were committed before the failure',
    );
  });
});
