// The accounting role's contract on every backend: quota counts, usage, the audit log, and folding the journal.
import fc from 'fast-check';
import { beforeEach, expect, it, vi } from 'vitest';
import {
  type AccountingStore,
  type AuditEntry,
  LATENCY_BOUNDS_MS,
  type MinuteRow,
  type UsageRow,
} from '../../../src/store/accounting.js';
import { auditAsListed } from '../../helpers/audit-model.js';

const usage = (key_id: string, day: string, counts: Partial<UsageRow> = {}): UsageRow => ({
  key_id,
  day,
  operation: 'people',
  requests: 0,
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  rejected: 0,
  ...counts,
});

/** A minute's row of one key, no requests unless `counts` says. */
export const minute = (key_id: string, at: string, counts: Partial<MinuteRow> = {}): MinuteRow => ({
  minute: at,
  key_id,
  operation: 'people',
  requests: 0,
  matched: 0,
  not_found: 0,
  ambiguous: 0,
  rejected: 0,
  latency: LATENCY_BOUNDS_MS.map(() => 0).concat(0),
  ...counts,
});

/** Latency buckets with `n` requests in bucket `i`. */
const timed = (i: number, n: number) => LATENCY_BOUNDS_MS.map((_, j) => (j === i ? n : 0)).concat(0);

const entry = (at: string, key_id: string, matched: string[] = [], status = 200): AuditEntry => ({
  at,
  key_id,
  operation: 'people',
  params: ['work_email', 'ln_url'],
  matched,
  status,
});

/** Registers the accounting contract's tests; `open()` is the suite's fresh, empty store. */
export function accountingContract(open: () => AccountingStore) {
  let store: AccountingStore;
  beforeEach(() => {
    store = open();
  });

  it('accumulates quota use per key and period', async () => {
    expect(await store.quotaUsed('k1', '2025-01')).toBe(0);
    await store.addQuotaUse('2025-01', new Map([['k1', 2]]));
    await store.addQuotaUse(
      '2025-01',
      new Map([
        ['k1', 3],
        ['k2', 1],
      ]),
    );
    await store.addQuotaUse('2025-02', new Map([['k1', 10]]));
    expect(await store.quotaUsed('k1', '2025-01')).toBe(5);
    expect(await store.quotaUsed('k2', '2025-01')).toBe(1);
    expect(await store.quotaUsed('k1', '2025-02')).toBe(10);
  });

  it('adds usage per key, day and operation, and reads it back in day order', async () => {
    await store.addUsage([
      usage('k1', '2025-01-02', { requests: 3, matched: 2, rejected: 1 }),
      usage('k1', '2025-01-01', { requests: 1, not_found: 1 }),
      usage('k2', '2025-01-01', { operation: 'company', requests: 1, ambiguous: 1 }),
    ]);
    await store.addUsage([usage('k1', '2025-01-02', { requests: 2, matched: 2 })]);
    await store.addUsage([]);
    expect(await store.usage({ keyId: 'k1' })).toEqual([
      usage('k1', '2025-01-01', { requests: 1, not_found: 1 }),
      usage('k1', '2025-01-02', { requests: 5, matched: 4, rejected: 1 }),
    ]);
    expect(await store.usage({ since: '2025-01-02' })).toEqual([
      usage('k1', '2025-01-02', { requests: 5, matched: 4, rejected: 1 }),
    ]);
    expect((await store.usage({})).map((r) => `${r.day} ${r.key_id} ${r.operation}`)).toEqual([
      '2025-01-01 k1 people',
      '2025-01-01 k2 company',
      '2025-01-02 k1 people',
    ]);
  });

  it('adds per-minute counts and latency buckets, reads a range in minute order, and prunes old minutes', async () => {
    await store.addMinutes([
      minute('k1', '2025-01-01T10:01', { requests: 2, matched: 2, latency: timed(3, 2) }),
      minute('k1', '2025-01-01T10:00', { requests: 1, not_found: 1, latency: timed(0, 1) }),
      minute('k2', '2025-01-01T10:00', { operation: 'company', requests: 1, rejected: 1 }),
    ]);
    // Another process's counts of the same minute add up.
    await store.addMinutes([
      minute('k1', '2025-01-01T10:01', { requests: 1, matched: 1, latency: timed(3, 1) }),
    ]);
    await store.addMinutes([]);
    expect(await store.minutes({ keyId: 'k1', since: '2025-01-01T10:00' })).toEqual([
      minute('k1', '2025-01-01T10:00', { requests: 1, not_found: 1, latency: timed(0, 1) }),
      minute('k1', '2025-01-01T10:01', { requests: 3, matched: 3, latency: timed(3, 3) }),
    ]);
    const range = await store.minutes({ since: '2025-01-01T10:00', until: '2025-01-01T10:01' });
    expect(range.map((r) => `${r.minute} ${r.key_id} ${r.operation}`)).toEqual([
      '2025-01-01T10:00 k1 people',
      '2025-01-01T10:00 k2 company',
    ]);
    expect(await store.pruneMinutes('2025-01-01T10:01')).toBe(2);
    expect((await store.minutes({ since: '' })).map((r) => r.minute)).toEqual(['2025-01-01T10:01']);
  });

  it('keeps audit entries, finds them by key or by a record they disclosed, and prunes old ones', async () => {
    await store.addAudit([
      entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
      entry('2025-01-02T10:00:00.000Z', 'k2', ['fp000000000001', 'fp000000000002'], 409),
      { ...entry('2025-01-03T10:00:00.000Z', 'k1', [], 400), params: [] },
    ]);
    await store.addAudit([]);
    const byRecord = await store.audit({ recordId: 'fp000000000001' });
    expect(byRecord).toEqual([
      entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
      entry('2025-01-02T10:00:00.000Z', 'k2', ['fp000000000001', 'fp000000000002'], 409),
    ]);
    expect((await store.audit({ recordId: 'fp000000000001', since: '2025-01-02' })).length).toBe(1);
    expect((await store.audit({ recordId: 'fp000000000001', keyId: 'k2' })).length).toBe(1);
    expect(await store.audit({ keyId: 'k1' })).toEqual([
      entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
      { ...entry('2025-01-03T10:00:00.000Z', 'k1', [], 400), params: [] },
    ]);
    expect((await store.audit({ limit: 2 })).map((e) => e.status)).toEqual([200, 409]);

    expect(await store.pruneAudit(new Date('2025-01-02T12:00:00.000Z'))).toBe(2);
    expect(await store.audit({ recordId: 'fp000000000001' })).toEqual([]);
    expect((await store.audit({})).map((e) => e.at)).toEqual(['2025-01-03T10:00:00.000Z']);
  });

  it('lists audit entries newest first on request, and a limit then keeps the newest', async () => {
    const same = '2025-01-02T10:00:00.000Z';
    await store.addAudit([
      entry('2025-01-01T10:00:00.000Z', 'k1', ['fp000000000001']),
      entry(same, 'k1', ['fp000000000001'], 200),
      entry(same, 'k1', ['fp000000000001'], 404),
      entry('2025-01-03T10:00:00.000Z', 'k2', ['fp000000000001'], 409),
    ]);
    const statuses = (entries: AuditEntry[]) => entries.map((e) => `${e.at.slice(8, 10)} ${e.status}`);
    const newest = ['03 409', '02 404', '02 200', '01 200'];
    expect(statuses(await store.audit({ newestFirst: true }))).toEqual(newest);
    expect(statuses(await store.audit({ recordId: 'fp000000000001', newestFirst: true }))).toEqual(newest);
    expect(statuses(await store.audit({ keyId: 'k1', newestFirst: true }))).toEqual(newest.slice(1));
    expect(statuses(await store.audit({ keyId: 'k1', newestFirst: true, limit: 2 }))).toEqual([
      '02 404',
      '02 200',
    ]);
    expect(statuses(await store.audit({ recordId: 'fp000000000001', newestFirst: true, limit: 1 }))).toEqual([
      '03 409',
    ]);
    expect(
      statuses(await store.audit({ recordId: 'fp000000000001', since: '2025-01-02', newestFirst: true })),
    ).toEqual(newest.slice(0, 3));
    expect(statuses(await store.audit({ keyId: 'k1', newestFirst: false }))).toEqual([
      '01 200',
      '02 200',
      '02 404',
    ]);
  });

  it('finds a record in an audit log of many thousand entries, since a time, and prunes by time', async () => {
    // 40,000 entries a minute apart from 2025-01-01: more than two of SQLite's index buckets.
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
    const watched = (i: number) => i % 10_000 === 5;
    const all = Array.from({ length: 40_000 }, (_, i) =>
      entry(at(i), i % 2 ? 'k1' : 'k2', watched(i) ? ['fp000000000007', `fp${i}`] : [`fp${i}`]),
    );
    for (let i = 0; i < all.length; i += 5_000) await store.addAudit(all.slice(i, i + 5_000));
    const times = (entries: AuditEntry[]) => entries.map((e) => e.at);
    const expected = all.filter((_, i) => watched(i)).map((e) => e.at);
    expect(times(await store.audit({ recordId: 'fp000000000007' }))).toEqual(expected);
    expect(times(await store.audit({ recordId: 'fp39999' }))).toEqual([at(39_999)]);
    expect(times(await store.audit({ recordId: 'fp000000000007', since: at(20_005) }))).toEqual(
      expected.slice(2),
    );
    expect(times(await store.audit({ recordId: 'fp000000000007', since: at(20_006) }))).toEqual(
      expected.slice(3),
    );
    expect(times(await store.audit({ recordId: 'fp000000000007', keyId: 'k1' }))).toEqual([
      at(5),
      at(10_005),
      at(20_005),
      at(30_005),
    ]);
    expect(times(await store.audit({ recordId: 'fp000000000007', newestFirst: true, limit: 2 }))).toEqual([
      at(30_005),
      at(20_005),
    ]);
    expect(await store.pruneAudit(new Date(at(25_000)))).toBe(25_000);
    expect(times(await store.audit({ recordId: 'fp000000000007' }))).toEqual(expected.slice(3));
    expect(await store.audit({ recordId: 'fp24999' })).toEqual([]);
    expect(times(await store.audit({ recordId: 'fp25000' }))).toEqual([at(25_000)]);
    expect((await store.audit({ since: at(0) })).length).toBe(15_000);
  });

  it('answers every query as a sorted, filtered list of all entries would, after any batches and prunes', async () => {
    // Times ten minutes apart over ten hours (more than a SQLite segment spans), out of order within and across
    // batches, many the same; a few keys, records and statuses.
    const base = Date.UTC(2025, 0, 1);
    const anEntry = fc
      .record({
        minutes: fc.integer({ min: 0, max: 60 }).map((m) => m * 10),
        key: fc.constantFrom('k1', 'k2', 'k3'),
        matched: fc.uniqueArray(fc.constantFrom('fp1', 'fp2', 'fp3', 'fp10', 'fp11'), { maxLength: 3 }),
        status: fc.constantFrom(200, 304, 404, 409),
        operation: fc.constantFrom('people', 'company'),
      })
      .map(
        ({ minutes, key, matched, status, operation }): AuditEntry => ({
          at: new Date(base + minutes * 60_000).toISOString(),
          key_id: key,
          operation: operation as AuditEntry['operation'],
          params: operation === 'people' ? ['ln_url'] : ['website', 'abn'],
          matched,
          status,
        }),
      );
    const aQuery = fc.record(
      {
        keyId: fc.constantFrom('k1', 'k2', 'k4'),
        recordId: fc.constantFrom('fp1', 'fp10', 'fp9'),
        since: fc.integer({ min: 0, max: 600 }).map((m) => new Date(base + m * 60_000).toISOString()),
        limit: fc.integer({ min: 1, max: 40 }),
        newestFirst: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    const step = fc.oneof(
      { weight: 4, arbitrary: fc.array(anEntry, { minLength: 1, maxLength: 30 }).map((add) => ({ add })) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 600 }).map((prune) => ({ prune })) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.array(aQuery, { maxLength: 8 }),
        async (steps, queries) => {
          await store.pruneAudit(new Date('9999-01-01T00:00:00.000Z'));
          let model: AuditEntry[] = [];
          for (const s of steps) {
            if ('add' in s) {
              await store.addAudit(s.add);
              model.push(...s.add);
            } else {
              const before = new Date(base + s.prune * 60_000);
              const kept = model.filter((e) => Date.parse(e.at) >= before.getTime());
              expect(await store.pruneAudit(before)).toBe(model.length - kept.length);
              model = kept;
            }
          }
          for (const q of [{}, ...queries]) {
            expect(await store.audit(q), JSON.stringify(q)).toEqual(auditAsListed(model, q));
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('folds a run of the accounting journal once, whatever offset a late folder believes in', async () => {
    const entry = (n: number) => ({
      atMs: Date.parse(`2026-11-23T10:00:0${n}.000Z`),
      key_id: 'kj',
      operation: 'people' as const,
      params: 'id',
      matched: `fp${n}`,
      status: 200,
    });
    const run = (n: number) => ({
      audit: [entry(n)],
      usage: [
        {
          key_id: 'kj',
          day: '2026-11-23',
          operation: 'people' as const,
          requests: 1,
          matched: 1,
          not_found: 0,
          ambiguous: 0,
          rejected: 0,
        },
      ],
      quota: new Map([['2026-11', new Map([['kj', 1]])]]),
    });
    expect(await store.journalOffset('seg-1')).toBe(0);
    expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(true);
    expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(false); // another folder got there first
    expect(await store.foldJournal('seg-1', 100, 180, run(2))).toBe(true);
    expect(await store.journalOffset('seg-1')).toBe(180);
    expect((await store.audit({ keyId: 'kj' })).map((e) => e.matched)).toEqual([['fp1'], ['fp2']]);
    expect(await store.quotaUsed('kj', '2026-11')).toBe(2);
    expect((await store.usage({ keyId: 'kj' }))[0]).toMatchObject({ requests: 2, matched: 2 });
    await store.forgetJournal('seg-1');
    expect(await store.journalOffset('seg-1')).toBeLessThan(0);
    // A folder that read the segment before its file went cannot fold any of it again.
    expect(await store.foldJournal('seg-1', 0, 100, run(1))).toBe(false);
    expect(await store.foldJournal('seg-1', 180, 200, run(3))).toBe(false);
    await store.forgetJournal('seg-never-folded');
    expect(await store.foldJournal('seg-never-folded', 0, 100, run(3))).toBe(false);
    expect((await store.audit({ keyId: 'kj' })).map((e) => e.matched)).toEqual([['fp1'], ['fp2']]);
  });

  it('drops the marks of segments forgotten more than a day ago, when it forgets another', async () => {
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: now - 2 * 86_400_000 });
    try {
      await store.forgetJournal('seg-old');
      vi.setSystemTime(now - 3_600_000);
      await store.forgetJournal('seg-recent');
    } finally {
      vi.useRealTimers();
    }
    await store.forgetJournal('seg-now');
    expect(await store.journalOffset('seg-old')).toBe(0);
    expect(await store.journalOffset('seg-recent')).toBeLessThan(0);
    expect(await store.journalOffset('seg-now')).toBeLessThan(0);
  });
}
