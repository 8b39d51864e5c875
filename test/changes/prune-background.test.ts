// A server prunes the change log in the background (src/server.ts): at start, then at its interval, one
// pruning at a time, errors reported rather than thrown.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pruneChangesInBackground } from '../../src/server.js';

describe('pruning the change log in the background', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prunes what is older than the retention at start and at each interval, one pruning at a time', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-25T12:00:00Z') });
    const cutoffs: string[] = [];
    let finish: () => void = () => {};
    const store = {
      pruneChanges: (before: Date) => {
        cutoffs.push(before.toISOString());
        return new Promise<number>((resolve) => {
          finish = () => resolve(0);
        });
      },
    };
    const stop = pruneChangesInBackground(store, 90, () => {}, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(cutoffs).toEqual(['2026-08-27T12:00:00.000Z']);
    // Still pruning: the next interval does not start another.
    await vi.advanceTimersByTimeAsync(1000);
    expect(cutoffs).toHaveLength(1);
    finish();
    await vi.advanceTimersByTimeAsync(1000);
    expect(cutoffs).toEqual(['2026-08-27T12:00:00.000Z', '2026-08-27T12:00:02.000Z']);
    stop();
    finish();
    await vi.advanceTimersByTimeAsync(5000);
    expect(cutoffs).toHaveLength(2);
  });

  it('reports a failure and tries again at the next interval', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let calls = 0;
    const store = {
      pruneChanges: async () => {
        calls++;
        throw new Error('store unavailable');
      },
    };
    const stop = pruneChangesInBackground(store, 1, (error) => errors.push(error), 1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(errors).toHaveLength(2);
    stop();
  });
});
