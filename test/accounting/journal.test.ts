// The accounting journal: lines that round-trip, runs folded into the store exactly once whoever folds
// them, and segments of processes that are gone folded in and deleted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { LookupRecord } from '../../src/accounting/accounting.js';
import { JournalFolder } from '../../src/accounting/folder.js';
import { JournalWriter } from '../../src/accounting/journal.js';
import { foldLines, journalLine } from '../../src/accounting/journal-format.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-journal-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const lookup = (n: number, status = 200): LookupRecord => ({
  at: Date.UTC(2026, 10, 23, 10, 0, 0, n),
  keyId: 'key_abc',
  operation: 'people',
  params: ['id'],
  matched: status === 200 ? [`fp${n}`] : [],
  status,
});

/** The pid of a process that has exited: its segments are a crashed server's. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  }).stdout as unknown as number;
}

describe('a journal line', () => {
  it('folds back into the audit row of the lookup it records', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
    fc.assert(
      fc.property(
        fc.record({
          at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
          keyId: word,
          operation: fc.constantFrom('people' as const, 'company' as const),
          params: fc.array(word, { maxLength: 4 }),
          matched: fc.array(word, { maxLength: 11 }),
          status: fc.integer({ min: 200, max: 599 }),
        }),
        (record) => {
          const line = journalLine(record);
          expect(line.endsWith('\n')).toBe(true);
          const [row] = foldLines(line).audit;
          expect(row).toEqual({
            atMs: record.at,
            key_id: record.keyId,
            operation: record.operation,
            params: record.params.join(','),
            matched: record.matched.join(','),
            status: record.status,
          });
        },
      ),
    );
  });

  it("records each lookup of a run whose times, keys and operations repeat, as a bulk's items do", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.constantFrom(0, 1, 86_400_000),
            keyId: fc.constantFrom('key_a', 'key_b'),
            operation: fc.constantFrom('people' as const, 'company' as const),
            params: fc.constantFrom<string[]>(['id'], ['work_email', 'ln_url'], []),
            matched: fc.constantFrom<string[]>(['fp1'], [], ['fp2', 'fp3']),
            status: fc.constantFrom(200, 404, 409),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (records) => {
          const rows = foldLines(records.map(journalLine).join('')).audit;
          expect(rows).toEqual(
            records.map((r) => ({
              atMs: r.at,
              key_id: r.keyId,
              operation: r.operation,
              params: r.params.join(','),
              matched: r.matched.join(','),
              status: r.status,
            })),
          );
        },
      ),
    );
  });

  it('counts each line on its UTC day, and a matched lookup in its month, whatever the order of the times', () => {
    const hour = 3_600_000;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 24 * 100 }), { minLength: 1, maxLength: 30 }),
        (hours) => {
          const times = hours.map((h) => Date.UTC(2026, 0, 1) + h * hour - 1 + (h % 3));
          const text = times.map((at) => journalLine({ ...lookup(1), at })).join('');
          const folded = foldLines(text);
          const days = new Map<string, number>();
          const months = new Map<string, number>();
          for (const at of times) {
            const iso = new Date(at).toISOString();
            days.set(iso.slice(0, 10), (days.get(iso.slice(0, 10)) ?? 0) + 1);
            months.set(iso.slice(0, 7), (months.get(iso.slice(0, 7)) ?? 0) + 1);
          }
          expect(new Map(folded.usage.map((u) => [u.day, u.requests]))).toEqual(days);
          expect(new Map([...folded.quota].map(([period, byKey]) => [period, byKey.get('key_abc')]))).toEqual(
            months,
          );
        },
      ),
    );
  });

  it('folds into audit entries, usage by outcome and quota counts of matched lookups only', () => {
    const text = [lookup(1), lookup(2, 404), lookup(3, 409), lookup(4, 400), lookup(5, 503)]
      .map(journalLine)
      .join('');
    const folded = foldLines(`${text}1234\tkey_abc\tpeo`); // an unfinished last line is no lookup
    expect(folded.audit).toHaveLength(5);
    expect(folded.audit[0]).toEqual({
      atMs: Date.parse('2026-11-23T10:00:00.001Z'),
      key_id: 'key_abc',
      operation: 'people',
      params: 'id',
      matched: 'fp1',
      status: 200,
    });
    expect(folded.usage).toEqual([
      {
        key_id: 'key_abc',
        day: '2026-11-23',
        operation: 'people',
        requests: 5,
        matched: 1,
        not_found: 1,
        ambiguous: 1,
        rejected: 1,
      },
    ]);
    expect(folded.quota).toEqual(new Map([['2026-11', new Map([['key_abc', 1]])]]));
  });

  it("counts the results a search returned against the key's search allowance, apart from its quota", () => {
    const search = (matched: string[], status = 200) =>
      journalLine({
        at: Date.UTC(2026, 10, 23),
        keyId: 'key_abc',
        operation: 'people_search',
        params: ['q'],
        matched,
        status,
      });
    const folded = foldLines(search(['fp1', 'fp2', 'fp3']) + search([]) + search(['fp4']) + search([], 400));
    expect(folded.quota).toEqual(new Map([['2026-11', new Map([['search:key_abc', 4]])]]));
  });
});

describe('folding the journal', () => {
  let store: Store;
  afterEach(() => store.close());

  it('counts each run once, however many folders try it at once', async () => {
    const dir = tempDir();
    store = openSqliteStore(join(dir, 'enrich.db'));
    const writer = new JournalWriter(join(dir, 'journal'));
    for (let n = 0; n < 300; n++) writer.append(journalLine(lookup(n)));
    writer.commit();
    const folders = Array.from({ length: 4 }, () => new JournalFolder(store, join(dir, 'journal')));
    await Promise.all(folders.map((f) => f.fold()));
    await Promise.all(folders.map((f) => f.fold()));
    expect(await store.audit({ keyId: 'key_abc' })).toHaveLength(300);
    expect(await store.quotaUsed('key_abc', '2026-11')).toBe(300);
    expect((await store.usage({ keyId: 'key_abc' }))[0]).toMatchObject({ requests: 300, matched: 300 });
  });

  it('folds a live segment as it grows, and deletes it once sealed and folded', async () => {
    const dir = tempDir();
    store = openSqliteStore(join(dir, 'enrich.db'));
    const journal = join(dir, 'journal');
    const writer = new JournalWriter(journal);
    const folder = new JournalFolder(store, journal);
    writer.append(journalLine(lookup(1)));
    writer.commit();
    expect(await folder.fold()).toBe(1);
    writer.append(journalLine(lookup(2)));
    writer.close();
    expect(await folder.fold()).toBe(1);
    expect(readdirSync(journal)).toEqual([]);
    expect(await store.audit({})).toHaveLength(2);
  });

  it('folds what a process that is gone left behind, drops its unfinished last line, and deletes it', async () => {
    const dir = tempDir();
    store = openSqliteStore(join(dir, 'enrich.db'));
    const journal = join(dir, 'journal');
    mkdirSync(journal);
    const crashed = `${deadPid()}-0-1.journal`;
    writeFileSync(join(journal, crashed), `${journalLine(lookup(7))}${journalLine(lookup(8))}1795\tkey_a`);
    expect(await new JournalFolder(store, journal).fold()).toBe(2);
    expect(readdirSync(journal)).toEqual([]);
    expect((await store.audit({})).map((e) => e.matched)).toEqual([['fp7'], ['fp8']]);
  });

  it('leaves the segments of another live process to it', async () => {
    const dir = tempDir();
    store = openSqliteStore(join(dir, 'enrich.db'));
    const journal = join(dir, 'journal');
    mkdirSync(journal);
    writeFileSync(join(journal, `${process.ppid}-0-1.journal`), journalLine(lookup(9)));
    expect(await new JournalFolder(store, journal).fold()).toBe(0);
    expect(readdirSync(journal)).toHaveLength(1);
  });
});
