import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageMeter } from '../../src/accounting/usage-meter.js';
import { mergeUsage, monthStart, sumUsage } from '../../src/accounting/usage-report.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

describe('the usage meter', () => {
  let store: Store;
  let nowMs: number;
  let meter: UsageMeter;

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    nowMs = Date.parse('2026-11-22T23:59:59.500Z');
    meter = new UsageMeter(store, 60_000, () => nowMs);
  });
  afterEach(async () => {
    await meter.close();
    await store.close();
  });

  it('counts every request and its outcome per key, UTC day and operation', async () => {
    for (const outcome of ['matched', 'matched', 'not_found', 'ambiguous', 'rejected', 'failed'] as const) {
      meter.record('k1', 'people', outcome);
    }
    meter.record('k1', 'company', 'matched');
    nowMs += 1000; // the next UTC day
    meter.record('k1', 'people', 'matched');
    meter.record('k2', 'people', 'not_found');
    await meter.flush();
    expect(await store.usage({ keyId: 'k1' })).toEqual([
      {
        key_id: 'k1',
        day: '2026-11-22',
        operation: 'company',
        requests: 1,
        matched: 1,
        not_found: 0,
        ambiguous: 0,
        rejected: 0,
      },
      {
        key_id: 'k1',
        day: '2026-11-22',
        operation: 'people',
        requests: 6,
        matched: 2,
        not_found: 1,
        ambiguous: 1,
        rejected: 1,
      },
      {
        key_id: 'k1',
        day: '2026-11-23',
        operation: 'people',
        requests: 1,
        matched: 1,
        not_found: 0,
        ambiguous: 0,
        rejected: 0,
      },
    ]);
  });

  it('reports a key’s usage with what is not yet flushed, counting nothing twice', async () => {
    meter.record('k1', 'people', 'matched');
    await meter.flush();
    meter.record('k1', 'people', 'matched');
    meter.record('k2', 'people', 'matched');
    const [flushing, report] = [meter.flush(), meter.report('k1', '2026-11-01')];
    meter.record('k1', 'people', 'not_found');
    await flushing;
    expect(sumUsage(await report)).toMatchObject({ requests: 3, matched: 2, not_found: 1 });
    expect(sumUsage(await meter.report('k1', '2026-11-23'))).toMatchObject({ requests: 0 });
  });

  it('keeps counts a flush could not write for the next flush', async () => {
    meter.record('k1', 'people', 'matched');
    const addUsage = store.addUsage.bind(store);
    store.addUsage = async () => {
      throw new Error('down');
    };
    await expect(meter.flush()).rejects.toThrow('down');
    meter.record('k1', 'people', 'matched');
    store.addUsage = addUsage;
    await meter.flush();
    expect(sumUsage(await store.usage({}))).toMatchObject({ requests: 2, matched: 2 });
  });

  it('writes what it holds on close', async () => {
    meter.record('k1', 'company', 'ambiguous');
    await meter.close();
    expect(sumUsage(await store.usage({}))).toMatchObject({ requests: 1, ambiguous: 1 });
  });
});

describe('usage reports', () => {
  it('merge rows of one key, day and operation and sort them by day', () => {
    const row = {
      key_id: 'k',
      operation: 'people' as const,
      requests: 1,
      matched: 1,
      not_found: 0,
      ambiguous: 0,
      rejected: 0,
    };
    expect(
      mergeUsage([
        { ...row, day: '2026-01-02' },
        { ...row, day: '2026-01-01' },
        { ...row, day: '2026-01-02' },
      ]),
    ).toEqual([
      { ...row, day: '2026-01-01' },
      { ...row, day: '2026-01-02', requests: 2, matched: 2 },
    ]);
  });

  it('start the period on the first of the UTC month', () => {
    expect(monthStart(new Date('2026-12-31T23:59:59Z'))).toBe('2026-12-01');
  });
});
