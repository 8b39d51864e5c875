// enrich import names the file in every error, caps the rejected lines it prints, and says when a file is
// not what it was imported as.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-import-errors-'));
const data = join(dir, 'data');
const gzipped = join(dir, 'gzipped');
let fresh = 0;
/** A new, empty store for each test. */
const newDb = () => join(dir, `store-${++fresh}.db`);
/** How many records of an entity a store holds, as enrich export counts them. */
const stored = (db: string, entity = 'people') =>
  Number(
    /^(\d+) /.exec(enrich(['export', entity, '--out', join(dir, 'count.ndjson'), '--db', db]).stderr)![1],
  );
const person = (n: number, extra = '') => `{"id":"fp${String(n).padStart(12, '0')}"${extra}}`;

describe('enrich import', () => {
  beforeAll(() => {
    expect(enrich(['generate', '--companies', '10', '--people', '40', '--out', data]).status).toBe(0);
    const big = ['generate', '--companies', '10', '--people', '6000', '--gzip', '--out', gzipped];
    expect(enrich(big).status).toBe(0);
  });

  it('refuses a directory or a missing file by name, before importing any file', () => {
    const db = newDb();
    const people = join(data, 'people.ndjson');
    const directory = enrich(['import', 'people', people, data, '--db', db]);
    expect(directory.status).toBe(1);
    expect(directory.stderr).toBe(`enrich: ${data}: is a directory, not a file\n`);
    const missing = join(dir, 'peopel.ndjson');
    const run = enrich(['import', 'people', people, missing, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`enrich: ${missing}: no such file\n`);
    expect(stored(db)).toBe(0);
  });

  it('names a truncated gzip file and says how many of its records were committed before it ended', () => {
    const whole = readFileSync(join(gzipped, 'people.ndjson.gz'));
    const truncated = join(dir, 'truncated.ndjson.gz');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.9)));
    const db = newDb();
    const run = enrich(['import', 'people', truncated, join(data, 'people.ndjson'), '--db', db]);
    expect(run.status).toBe(1);
    const message = new RegExp(
      `^enrich: ${truncated}: the gzip data ends early: the file is truncated; (\\d+) records of it were committed before the failure; the 1 file\\(s\\) after it were not imported\\n$`,
    );
    expect(run.stderr).toMatch(message);
    const committed = Number(message.exec(run.stderr)![1]);
    expect(committed).toBeGreaterThanOrEqual(5000);
    expect(stored(db)).toBe(committed);
  });

  it('names a corrupt gzip file', () => {
    const corrupt = join(dir, 'corrupt.ndjson.gz');
    writeFileSync(corrupt, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(200, 7)]));
    const run = enrich(['import', 'people', corrupt, '--db', newDb()]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^enrich: ${corrupt}: the gzip data is corrupt \\(.+\\); 0 records of it were committed`),
    );
  });

  it('prints the first 100 rejected lines, then how many more there were, and keeps the good ones', () => {
    const file = join(dir, 'mixed.ndjson');
    const lines = Array.from({ length: 250 }, (_, n) => person(n + 1, n % 5 < 3 ? ',"nickname":"x"' : ''));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const db = newDb();
    const run = enrich(['import', 'people', file, '--db', db]);
    expect(run.status).toBe(1);
    const errors = run.stderr.trimEnd().split('\n');
    expect(errors).toHaveLength(101);
    expect(errors[0]).toBe(`${file}:1: $.nickname: Unknown field`);
    expect(errors[99]).toMatch(new RegExp(`^${file}:166: \\$\\.nickname: `));
    expect(errors[100]).toBe(`${file}: 50 more rejected lines not shown`);
    expect(run.stdout).toMatch(
      /100 people imported \(100 inserted, 0 updated, 0 unchanged\), 150 rejected of 250 lines/,
    );
    expect(stored(db)).toBe(100);
  });

  it('says when nearly every line was rejected because the file holds the other entity', () => {
    const people = join(data, 'people.ndjson');
    const run = enrich(['import', 'companies', people, '--db', newDb()]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /0 companies imported \(0 inserted, 0 updated, 0 unchanged\), 40 rejected of 40 lines/,
    );
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
      `nearly every line of ${people} was rejected (40 of 40 as companies): is it a people file? (enrich import people ${people})`,
    );
  });

  it('says when nearly every line was rejected, without naming an entity the lines are not', () => {
    const junk = join(dir, 'names.txt');
    writeFileSync(junk, `${Array.from({ length: 12 }, (_, n) => `Jane Citizen ${n}`).join('\n')}\n`);
    const run = enrich(['import', 'people', junk, '--db', newDb()]);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
      `nearly every line of ${junk} was rejected (12 of 12 as people): is it NDJSON of people records, one JSON object per line?`,
    );
    const few = join(dir, 'few.ndjson');
    writeFileSync(few, `${Array.from({ length: 9 }, () => 'oops').join('\n')}\n`);
    expect(enrich(['import', 'people', few, '--db', newDb()]).stderr).not.toMatch(/nearly every line/);
  });
});

describe('enrich import given the wrong kind of file', () => {
  /** Runs an import of `files` into a new store: the run, and how many records the store holds after. */
  function importInto(files: string[]) {
    const db = newDb();
    const run = enrich(['import', 'people', ...files, '--db', db]);
    return { run, stored: stored(db) };
  }

  it('says at once that a CSV is one and points at enrich match, however short it is', () => {
    const list = join(dir, 'leads.csv');
    const rows = Array.from({ length: 7 }, (_, n) => `Jane ${n},jane${n}@acme.com.au`);
    writeFileSync(list, `Name,Email\n${rows.join('\n')}\n`);
    const { run, stored: count } = importInto([join(data, 'people.ndjson'), list]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `enrich: ${list} looks like CSV (its first line: "Name,Email"), not NDJSON: enrich import takes records as ` +
        `JSON, one object per line. To match a list of people against the store, use: enrich match people ${list}\n`,
    );
    expect(run.stdout).toBe('');
    expect(count).toBe(0); // refused before any file was imported
  });

  it('says that a JSON array wants one record per line, in one line instead of a hundred', () => {
    const array = join(dir, 'people.json');
    const people = readFileSync(join(data, 'people.ndjson'), 'utf8').trim().split('\n');
    writeFileSync(array, `[\n  ${people.join(',\n  ')}\n]\n`);
    const { run, stored: count } = importInto([array]);
    expect(run.status).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `enrich: ${array} holds a JSON array, not NDJSON: enrich import takes one record per line. ` +
        `Write one per line first, e.g. jq -c '.[]' ${array} > people.ndjson`,
    ]);
    expect(count).toBe(0);
  });

  it('says that binary data is not text, without echoing a byte of it', () => {
    const binary = join(dir, 'data.bin');
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, n) => (n * 37 + 11) % 256));
    writeFileSync(binary, Buffer.concat([Buffer.from('\x7fELF\x1b[2J'), bytes]));
    const workbook = join(dir, 'leads.xlsx');
    writeFileSync(workbook, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), bytes]));
    for (const [file, what] of [
      [binary, 'binary data'],
      [workbook, 'a ZIP archive (an Excel workbook?)'],
    ] as const) {
      const { run } = importInto([file]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `enrich: ${file} is not text (${what}): enrich import takes NDJSON, one JSON record per line (plain or gzip)\n`,
      );
    }
  });

  it('writes the control characters of a rejected line as escapes, never to the terminal as they are', () => {
    const file = join(dir, 'one-bad-line.ndjson');
    const good = Array.from({ length: 200 }, (_, n) => person(n + 1));
    writeFileSync(file, `${good.join('\n')}\n\u007fELF\u001b[2J\n`);
    const { run } = importInto([file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:201: $: Invalid JSON: `);
    expect(run.stderr).toContain('\\x7fELF\\x1b[2J');
    expect(run.stderr.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
  });
});
