// A refresh's files' ids against the stored ids: the stored ids the files leave out, how many are stored, and
// the ids the files name twice; the same whether the files are read on the caller's thread or on one of
// their own, and a file that cannot be read fails either way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileIds } from '../../src/ingest/read-file-ids.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-file-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fileOf = (lines: string[]) => {
  const path = join(dir, `f${files++}.ndjson`);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return path;
};

async function* pagesOf(ids: string[], size: number) {
  for (let i = 0; i < ids.length; i += size) yield ids.slice(i, i + size);
}

/** What a reading says, sorted for comparison. */
const compared = async (paths: string[], stored: string[], thread: boolean, page = 3) => {
  const { absent, stored: count, repeated } = await readFileIds(paths, thread).compare(pagesOf(stored, page));
  return { absent: [...absent].sort(), stored: count, repeated: [...repeated].sort() };
};

describe('a refresh’s files’ ids', () => {
  it('give the stored ids they leave out and the ids they name twice, on either thread', async () => {
    const id = fc.stringMatching(/^[a-z0-9\u00e9\u4e2d"\\]{1,6}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(id, { maxLength: 30 }),
        fc.uniqueArray(id, { maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        async (named, stored, page) => {
          // Lines of the documented shape, a line of another shape, blank lines and a line with no id.
          const lines = named.map((value, n) =>
            n % 3 === 0 ? JSON.stringify({ name: 'x', id: value }) : JSON.stringify({ id: value, name: 'x' }),
          );
          const path = fileOf([...lines, '', '   ', '{"name":"no id"}', 'not json']);
          const expected = {
            absent: stored.filter((value) => !named.includes(value)).sort(),
            stored: stored.length,
            repeated: [...new Set(named.filter((value, n) => named.indexOf(value) !== n))].sort(),
          };
          expect(await compared([path], stored, false, page)).toEqual(expected);
          expect(await compared([path], stored, true, page)).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('count an id named in two files as repeated, and read gzip files', async () => {
    const first = fileOf(['{"id":"a"}', '{"id":"b"}']);
    const second = join(dir, 'second.ndjson.gz');
    writeFileSync(second, gzipSync('{"id":"b"}\n{"id":"c"}\n'));
    for (const thread of [false, true]) {
      expect(await compared([first, second], ['a', 'd', 'c', 'e'], thread)).toEqual({
        absent: ['d', 'e'],
        stored: 4,
        repeated: ['b'],
      });
    }
  });

  it('fail as the file does when it cannot be read, on either thread', async () => {
    const truncated = join(dir, 'truncated.ndjson.gz');
    writeFileSync(truncated, gzipSync('{"id":"a"}\n'.repeat(1000)).subarray(0, 40));
    for (const thread of [false, true]) {
      await expect(compared([truncated], ['a'], thread)).rejects.toMatchObject({
        message: 'unexpected end of file',
        code: 'Z_BUF_ERROR',
      });
    }
  });
});
