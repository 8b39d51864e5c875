// The change log's contract on every backend: each record write appends its events in its transaction, in
// commit order; unchanged records append nothing; bounds, filters, wake-ups and pruning.
import { beforeEach, expect, it } from 'vitest';
import type { ClassifiedEvent, LoggedEvent } from '../../../src/changes/events.js';
import type { RecordToStore } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import type { Entity, Identifier } from '../../../src/vocabulary/entities.js';

const pid = (n: number) => `fp${String(n).padStart(12, '0')}`;
const cid = (n: number) => `f${String(n).padStart(12, '0')}`;

/** A record of `entity` whose body is `{"id": …, ...fields}`; its etag follows its body. */
function record(
  entity: Entity,
  n: number,
  fields: Record<string, unknown> = {},
  identifiers: Identifier[] = [],
) {
  const id = entity === 'people' ? pid(n) : cid(n);
  const body = JSON.stringify({ id, ...fields });
  return {
    id,
    body,
    etag: `"${Buffer.from(body).toString('base64url').slice(-24)}${body.length}"`,
    identifiers,
  };
}
const person = (n: number, fields?: Record<string, unknown>) => record('people', n, fields);
const company = (n: number, fields?: Record<string, unknown>) => record('companies', n, fields);

const job = (companyId: string, name: string, position: string, seniority: string) => ({
  position,
  seniority,
  current_company: { id: companyId, name },
});

/** Every event after `after`, as type and data (what a write classified). */
async function eventsAfter(store: Store, after = 0): Promise<ClassifiedEvent[]> {
  const events = await store.readChanges(after, 1000);
  return events.map(({ type, data }) => ({ type, data }) as ClassifiedEvent);
}

/** Registers the change log's contract tests; `open()` is the suite's fresh, empty store. */
export function changesContract(open: () => Store) {
  let store: Store;
  beforeEach(() => {
    store = open();
  });

  it('starts empty', async () => {
    expect(await store.changeBounds()).toEqual({ first: 0, last: 0 });
    expect(await store.readChanges(0, 10)).toEqual([]);
  });

  it('logs a created event per new record, numbered in order, stamped with the commit time', async () => {
    const before = Date.now();
    expect(await store.upsert('people', [person(2), person(1)])).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    await store.upsert('companies', [company(7)]);
    const events = await store.readChanges(0, 10);
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'person.created', data: { person_id: pid(2) } },
      { type: 'person.created', data: { person_id: pid(1) } },
      { type: 'company.created', data: { company_id: cid(7) } },
    ]);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(3);
    for (const { at } of events) {
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(at)).toBeLessThanOrEqual(Date.now() + 1000);
    }
    expect(await store.changeBounds()).toEqual({ first: seqs[0], last: seqs[2] });
  });

  it('logs an update with the fields that changed, and its derived signal right after it', async () => {
    await store.upsert('people', [person(1, job(cid(1), 'Acme', 'Engineer', 'Other'))]);
    await store.upsert('companies', [company(1, { name: 'Acme', size: '11-50' })]);
    const { last } = await store.changeBounds();
    const moved = person(1, { ...job(cid(2), 'Bolt', 'Engineer', 'Other'), headline: 'Engineer at Bolt' });
    expect(await store.upsert('people', [moved])).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    await store.upsert('companies', [company(1, { name: 'Acme', size: '51-200' })]);
    expect(await eventsAfter(store, last)).toEqual([
      { type: 'person.updated', data: { person_id: pid(1), fields: ['current_company', 'headline'] } },
      {
        type: 'person.job_changed',
        data: {
          person_id: pid(1),
          change: 'new_company',
          previous: { company_id: cid(1), company_name: 'Acme', position: 'Engineer', seniority: 'Other' },
          current: { company_id: cid(2), company_name: 'Bolt', position: 'Engineer', seniority: 'Other' },
        },
      },
      { type: 'company.updated', data: { company_id: cid(1), fields: ['size'] } },
    ]);
    expect((await store.getRecord('people', pid(1)))?.body).toBe(moved.body);
  });

  it('logs nothing for a record whose content is on file, and counts it as unchanged', async () => {
    await store.upsert('people', [person(1, { a: 1 }), person(2, { a: 2 })]);
    const bounds = await store.changeBounds();
    expect(await store.upsert('people', [person(1, { a: 1 }), person(2, { a: 2 }), person(3)])).toEqual({
      inserted: 1,
      updated: 0,
      unchanged: 2,
    });
    expect(await eventsAfter(store, bounds.last)).toEqual([
      { type: 'person.created', data: { person_id: pid(3) } },
    ]);
  });

  it('classifies an id repeated in a batch in turn', async () => {
    await store.upsert('people', [person(1, { a: 1 })]);
    const { last } = await store.changeBounds();
    const batch = [
      person(2),
      person(1, { a: 1 }),
      person(2, { b: 1 }),
      person(2, { b: 1 }),
      person(1, { a: 2 }),
    ];
    expect(await store.upsert('people', batch)).toEqual({ inserted: 1, updated: 2, unchanged: 2 });
    const events = await eventsAfter(store, last);
    // As upserted in turn; the order of records' events within one batch is the backend's.
    expect(events).toHaveLength(3);
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'person.created', data: { person_id: pid(2) } },
        { type: 'person.updated', data: { person_id: pid(2), fields: ['b'] } },
        { type: 'person.updated', data: { person_id: pid(1), fields: ['a'] } },
      ]),
    );
    expect(events.findIndex((e) => e.type === 'person.created')).toBeLessThan(
      events.findIndex(
        (e) => e.type === 'person.updated' && 'person_id' in e.data && e.data.person_id === pid(2),
      ),
    );
  });

  it('logs each removal with its reason: deleted, suppressed, snapshot', async () => {
    await store.upsert('people', [person(1), person(2), person(3)]);
    await store.upsert('companies', [company(1)]);
    const { last } = await store.changeBounds();
    expect(await store.delete('people', [pid(1), pid(9)])).toBe(1);
    expect(await store.suppress('people', [pid(2)], ['h'])).toBe(1);
    expect(await store.delete('people', [pid(3)], 'snapshot')).toBe(1);
    expect(await store.delete('companies', [cid(1), cid(1)], 'snapshot')).toBe(1);
    expect(await store.delete('people', [pid(3)])).toBe(0);
    expect(await eventsAfter(store, last)).toEqual([
      { type: 'person.removed', data: { person_id: pid(1), reason: 'deleted' } },
      { type: 'person.removed', data: { person_id: pid(2), reason: 'suppressed' } },
      { type: 'person.removed', data: { person_id: pid(3), reason: 'snapshot' } },
      { type: 'company.removed', data: { company_id: cid(1), reason: 'snapshot' } },
    ]);
  });

  it('logs a bulk load into an empty entity as any upsert (where the backend has one)', async () => {
    const bulk = await store.beginBulkLoad?.('people');
    const write = (records: RecordToStore[]) =>
      bulk ? bulk.upsert(records) : store.upsert('people', records);
    try {
      const first = Array.from({ length: 120 }, (_, n) => person(n));
      first.splice(10, 0, person(3, { v: 2 }));
      first.push(person(3, { v: 2 }));
      expect(await write(first)).toEqual({ inserted: 120, updated: 1, unchanged: 1 });
      expect(await write([person(119, { v: 1 }), person(200)])).toEqual({
        inserted: 1,
        updated: 1,
        unchanged: 0,
      });
    } finally {
      await bulk?.finish();
    }
    const events = await eventsAfter(store);
    expect(events.filter((e) => e.type === 'person.created')).toHaveLength(121);
    expect(events.filter((e) => e.type === 'person.updated').map((e) => e.data)).toEqual([
      { person_id: pid(3), fields: ['v'] },
      { person_id: pid(119), fields: ['v'] },
    ]);
    expect(events).toContainEqual({ type: 'person.created', data: { person_id: pid(200) } });
  });

  it('reads after a number, at most a limit, of some types only', async () => {
    await store.upsert('people', [person(1), person(2)]);
    await store.upsert('companies', [company(1)]);
    await store.delete('people', [pid(1)]);
    const all = await store.readChanges(0, 100);
    expect(all.map((e) => e.type)).toEqual([
      'person.created',
      'person.created',
      'company.created',
      'person.removed',
    ]);
    expect(await store.readChanges(all[0]!.seq, 2)).toEqual(all.slice(1, 3));
    expect(await store.readChanges(all[3]!.seq, 10)).toEqual([]);
    const some = await store.readChanges(0, 10, ['company.created', 'person.removed']);
    expect(some).toEqual([all[2], all[3]]);
    expect(await store.readChanges(0, 1, ['person.removed'])).toEqual([all[3]]);
    expect(await store.readChanges(0, 10, ['person.job_changed'])).toEqual([]);
  });

  it('wakes a watcher after a write commits, and no longer once stopped', async () => {
    let woken = 0;
    const stop = store.watchChanges(() => woken++);
    const wokenOnce = () => expect.poll(() => woken, { timeout: 5_000, interval: 20 }).toBeGreaterThan(0);
    await store.upsert('people', [person(1)]);
    await wokenOnce();
    stop();
  });

  it('prunes entries committed before a time, keeps the numbers of those after, never reuses one', async () => {
    await store.upsert('people', [person(1), person(2)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cutoff = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.upsert('people', [person(3)]);
    const all = await store.readChanges(0, 10);
    expect(await store.pruneChanges(cutoff)).toBe(2);
    expect(await store.readChanges(0, 10)).toEqual([all[2]]);
    expect(await store.changeBounds()).toEqual({ first: all[2]!.seq, last: all[2]!.seq });
    expect(await store.pruneChanges(new Date(Date.now() + 60_000))).toBe(1);
    expect(await store.changeBounds()).toEqual({ first: 0, last: 0 });
    await store.upsert('people', [person(4)]);
    const [next] = await store.readChanges(0, 10);
    expect(next!.seq).toBeGreaterThan(all[2]!.seq);
  });

  it('counts the events this process appended, by type', async () => {
    const before = new Map(store.changesAppended());
    await store.upsert('people', [person(1), person(2)]);
    await store.delete('people', [pid(1)]);
    const after = store.changesAppended();
    const added = (type: LoggedEvent['type']) => (after.get(type) ?? 0) - (before.get(type) ?? 0);
    expect(added('person.created')).toBe(2);
    expect(added('person.removed')).toBe(1);
  });
}
