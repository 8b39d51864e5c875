// The health role's contract on every backend.
import { beforeEach, expect, it } from 'vitest';
import type { HealthStore } from '../../../src/store/health.js';

/** Registers the health contract's tests; `open()` is the suite's fresh store. */
export function healthContract(open: () => HealthStore) {
  let store: HealthStore;
  beforeEach(() => {
    store = open();
  });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('says how many bytes it takes', async () => {
    const bytes = await store.sizeBytes();
    expect(Number.isSafeInteger(bytes)).toBe(true);
    expect(bytes).toBeGreaterThan(0);
  });
}
