// Per-minute counts: kept in memory per key and operation, added to the store once a minute, percentiles from
// latency buckets.
import { describe, expect, it, vi } from 'vitest';
import {
  latencyBucket,
  latencyPercentile,
  MinuteCounts,
  minuteOf,
} from '../../src/accounting/minute-counts.js';
import { LATENCY_BOUNDS_MS, type MinuteRow } from '../../src/store/accounting.js';

/**
 * A store that keeps what it is given, and fails while `failing` is set; while `locked` is, a write that is
 * not to wait fails busy, as SQLite's does while another process holds its write lock.
 */
function fakeStore() {
  const added: MinuteRow[] = [];
  const store = {
    failing: false,
    locked: false,
    waits: [] as Array<boolean | undefined>,
    added,
    pruned: [] as string[],
    async addMinutes(rows: MinuteRow[], opts?: { wait?: boolean }) {
      store.waits.push(opts?.wait);
      if (store.failing) throw new Error('store down');
      if (store.locked && opts?.wait === false) {
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }
      added.push(...rows.map((r) => ({ ...r, latency: [...r.latency] })));
    },
    async pruneMinutes(before: string) {
      if (store.failing) throw new Error('store down');
      store.pruned.push(before);
      return 0;
    },
  };
  return store;
}

describe('latency buckets', () => {
  it('put a latency in the first bucket whose bound it does not exceed, the slowest in the last', () => {
    expect(latencyBucket(0.05)).toBe(0);
    expect(latencyBucket(0.1)).toBe(0);
    expect(latencyBucket(0.11)).toBe(1);
    expect(latencyBucket(3)).toBe(5);
    expect(latencyBucket(60_000)).toBe(LATENCY_BOUNDS_MS.length);
  });

  it('give the bound of the bucket holding a percentile, null when none was timed', () => {
    const buckets = LATENCY_BOUNDS_MS.map(() => 0).concat(0);
    expect(latencyPercentile(buckets, 0.5)).toBeNull();
    buckets[1] = 98; // 0.25 ms
    buckets[6] = 2; // 10 ms
    expect(latencyPercentile(buckets, 0.5)).toBe(0.25);
    expect(latencyPercentile(buckets, 0.99)).toBe(10);
    buckets[LATENCY_BOUNDS_MS.length] = 100;
    expect(latencyPercentile(buckets, 0.99)).toBeNull();
  });
});

describe('MinuteCounts', () => {
  const at = Date.parse('2026-11-25T10:00:30Z');

  it('counts requests, outcomes and latency per minute, key and operation, and writes finished minutes', async () => {
    const store = fakeStore();
    const counts = new MinuteCounts(store, () => {}, 3_600_000);
    counts.count('k1', 'people', 200, true, 0.2, at);
    counts.count('k1', 'people', 404, false, 0.25, at + 1000);
    counts.count('k1', 'people_search', 200, false, 4, at + 2000);
    counts.count('k2', 'company', 429, false, undefined, at + 3000);
    counts.count('k1', 'people', 500, false, 20, at + 60_000);
    const flushed = Date.now();
    await counts.flush();
    expect(store.added.map((r) => [r.minute, r.key_id, r.operation, r.requests])).toEqual([
      ['2026-11-25T10:00', 'k1', 'people', 2],
      ['2026-11-25T10:00', 'k1', 'people_search', 1],
      ['2026-11-25T10:00', 'k2', 'company', 1],
      ['2026-11-25T10:01', 'k1', 'people', 1],
    ]);
    expect(store.added[0]).toMatchObject({ matched: 1, not_found: 1, ambiguous: 0, rejected: 0 });
    expect(store.added[0]!.latency[1]).toBe(2);
    // A search that returned nothing is not found; a 5xx is a request only.
    expect(store.added[1]).toMatchObject({ matched: 0, not_found: 1 });
    expect(store.added[2]).toMatchObject({ rejected: 1, latency: LATENCY_BOUNDS_MS.map(() => 0).concat(0) });
    expect(store.added[3]).toMatchObject({ matched: 0, not_found: 0, rejected: 0 });
    // The prune's minute, 30 days back, is read from the clock during the flush: it may tick over meanwhile.
    const thirtyDaysBefore = (now: number) => minuteOf(now - 30 * 86_400_000);
    expect(store.pruned).toHaveLength(1);
    expect([thirtyDaysBefore(flushed), thirtyDaysBefore(Date.now())]).toContain(store.pruned[0]);
    await counts.close();
  });

  // A write refused is kept for the next flush; a prune that fails after the write does not add its rows twice.
  it.each([
    ['refused', false],
    ['written, then a prune failed', true],
  ])('writes each row once, everything on close (rows %s)', async (_, afterWrite) => {
    const store = fakeStore();
    const errors: unknown[] = [];
    const counts = new MinuteCounts(store, (error) => errors.push(error), 3_600_000);
    counts.count('k1', 'people', 200, true, 1, Date.now());
    const addMinutes = store.addMinutes;
    if (afterWrite) {
      store.addMinutes = async (rows, opts) => {
        await addMinutes(rows, opts);
        store.failing = true;
      };
    } else {
      store.failing = true;
    }
    await counts.flush(true);
    expect(errors).toHaveLength(1);
    store.failing = false;
    store.addMinutes = addMinutes;
    await counts.close();
    expect(store.added.map((r) => r.requests)).toEqual([1]);
  });

  it("does not wait for another process's write lock: tries again a second later, and waits on close", async () => {
    vi.useFakeTimers({ now: at });
    try {
      const store = fakeStore();
      const errors: unknown[] = [];
      const counts = new MinuteCounts(store, (error) => errors.push(error), 60_000);
      counts.count('k1', 'people', 200, true, 1, at);
      store.locked = true;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(store.waits).toEqual([false]);
      expect(store.added).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(store.waits).toEqual([false, false]);
      store.locked = false;
      await vi.advanceTimersByTimeAsync(1000);
      expect(store.added.map((r) => [r.minute, r.requests])).toEqual([['2026-11-25T10:00', 1]]);
      // Turned away is not a failure: nothing to report.
      expect(errors).toEqual([]);
      counts.count('k1', 'people', 200, true, 1, Date.now());
      store.locked = true;
      await counts.close();
      expect(store.waits.at(-1)).toBe(true);
      expect(store.added.map((r) => r.requests)).toEqual([1, 1]);
    } finally {
      vi.useRealTimers();
    }
  });
});
