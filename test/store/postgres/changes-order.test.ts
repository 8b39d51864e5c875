// The change log on PostgreSQL with several writers at once (several servers, or imports beside a server):
// entries become visible in the order of their numbers, so a reader that follows the log never skips one;
// and a commit on one connection wakes the watchers of another store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';

const person = (writer: number, n: number, v = 0): RecordToStore => {
  const id = `fp${String(writer * 100_000 + n).padStart(12, '0')}`;
  const body = `{"id":"${id}","v":${v}}`;
  return { id, body, etag: `"${id}-${v}"`, identifiers: [{ kind: 'linkedin', value: id }] };
};

let database: TestDatabase;
const stores: PostgresStore[] = [];
const open = async () => {
  const store = await openPostgresStore({ url: database.url, poolSize: 3 });
  stores.push(store);
  return store;
};

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await database?.drop();
});

describe('the change log with concurrent writers on PostgreSQL', () => {
  it('never lets a reader that follows the log skip an entry', async () => {
    const [a, b, reader] = [await open(), await open(), await open()];
    let writing = true;
    const write = async (store: PostgresStore, writer: number) => {
      for (let round = 0; round < 40; round++) {
        const batch = Array.from({ length: 1 + (round % 7) * 20 }, (_, n) => person(writer, n, round));
        await store.upsert('people', batch);
        if (round % 5 === 4) await store.delete('people', [person(writer, round).id]);
      }
    };
    const seen: number[] = [];
    const follow = async () => {
      let after = 0;
      while (writing) {
        const events = await reader.readChanges(after, 500);
        for (const event of events) seen.push(event.seq);
        after = events.at(-1)?.seq ?? after;
      }
      for (;;) {
        const events = await reader.readChanges(after, 500);
        if (events.length === 0) return;
        for (const event of events) seen.push(event.seq);
        after = events.at(-1)!.seq;
      }
    };
    const following = follow();
    await Promise.all([write(a, 1), write(b, 2)]);
    writing = false;
    await following;
    const all: number[] = [];
    for (let after = 0; ; ) {
      const events = await reader.readChanges(after, 1000);
      if (events.length === 0) break;
      all.push(...events.map((e) => e.seq));
      after = events.at(-1)!.seq;
    }
    expect(all.length).toBeGreaterThan(1000);
    // Numbers are dense (nothing pruned, no transaction rolled back) and the reader saw every one.
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(seen).toEqual(all);
  });

  it('wakes the watchers of every store when one commits', async () => {
    const [writer, watcher] = [await open(), await open()];
    let woken = 0;
    const stop = watcher.watchChanges(() => woken++);
    // Once listening (it wakes its watchers when it starts to), a commit elsewhere wakes them again.
    await expect.poll(() => woken, { timeout: 5_000, interval: 20 }).toBeGreaterThan(0);
    const before = woken;
    await writer.upsert('people', [person(9, 1)]);
    await expect.poll(() => woken, { timeout: 5_000, interval: 20 }).toBeGreaterThan(before);
    stop();
  });
});
