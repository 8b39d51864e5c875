// A SQLite write's events carry the time its transaction ended, not the time it began: a refresh's
// transaction of thousands of records takes a second or more, and a receiver measures delay from this time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/store.js';

/** Each record classified takes a second of the (fake) clock. */
vi.mock('../../../src/changes/classify.js', async (original) => {
  const actual = await original<typeof import('../../../src/changes/classify.js')>();
  return {
    ...actual,
    classifyChange: (...args: Parameters<typeof actual.classifyChange>) => {
      vi.advanceTimersByTime(1000);
      return actual.classifyChange(...args);
    },
  };
});

const START = Date.parse('2026-12-01T00:00:00.000Z');
const person = (n: number, title: string) => {
  const id = `fp${String(n).padStart(12, '0')}`;
  const body = JSON.stringify({ id, title });
  return { id, body, etag: `"${title}-${n}"`, identifiers: [] };
};

describe('the time of a write’s events', () => {
  let store: SqliteStore;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: START });
    store = openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
    vi.useRealTimers();
  });

  it('is when the transaction ended, for every event of it', async () => {
    await store.upsert('people', [person(1, 'a'), person(2, 'a'), person(3, 'a')]);
    const created = await store.readChanges(0, 10);
    expect(created.map((e) => e.at)).toEqual(Array(3).fill(new Date(START + 3000).toISOString()));

    await store.upsert('people', [person(1, 'b'), person(2, 'b')]);
    const updated = await store.readChanges(created.at(-1)!.seq, 10);
    expect(updated.map((e) => e.type)).toEqual(['person.updated', 'person.updated']);
    expect(updated.map((e) => e.at)).toEqual(Array(2).fill(new Date(START + 5000).toISOString()));
  });

  it('is when the transaction ended for removals too', async () => {
    await store.upsert('people', [person(1, 'a'), person(2, 'a')]);
    vi.setSystemTime(START + 60_000);
    expect(await store.delete('people', [person(1, 'a').id, person(2, 'a').id])).toBe(2);
    const removed = (await store.readChanges(0, 10)).filter((e) => e.type === 'person.removed');
    // Two removals classified, a second each, before the one time they carry.
    expect(removed.map((e) => e.at)).toEqual(Array(2).fill(new Date(START + 62_000).toISOString()));
  });
});
