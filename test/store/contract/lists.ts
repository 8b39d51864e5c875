// The lists role's contract (src/store/lists.ts): a key's own jobs, newest first; one claim per job at a time,
// its lease renewed by progress and taken over once it runs out; ended, released and pruned jobs.
import { expect, it } from 'vitest';
import type { NewListJob } from '../../../src/store/lists.js';
import type { Store } from '../../../src/store/store.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, second)).toISOString();

const job = (id: string, keyId: string, second: number): NewListJob => ({
  id,
  key_id: keyId,
  entity: 'people',
  format: 'csv',
  options: '{"map":[],"fields":null}',
  mapping: '[{"column":"Email","params":["work_email"]}]',
  created_at: at(second),
  expires_at: at(second + 600),
});

const progress = (processed: number) => ({
  rows: 10,
  processed,
  matched: processed,
  not_found: 0,
  ambiguous: 0,
  invalid: 0,
  quota_exceeded: 0,
  output_bytes: processed * 10,
});

export function listsContract(store: () => Store) {
  it("keeps a key's jobs to itself, newest first, paged", async () => {
    const s = store();
    await s.createList(job('ls_a', 'key_1', 1));
    await s.createList(job('ls_b', 'key_1', 2));
    await s.createList(job('ls_c', 'key_1', 3));
    await s.createList(job('ls_x', 'key_2', 4));
    expect(await s.getList('key_2', 'ls_a')).toBeUndefined();
    expect(await s.getList('key_1', 'ls_a')).toMatchObject({
      id: 'ls_a',
      status: 'queued',
      rows: null,
      processed: 0,
      problem: null,
      started_at: null,
    });
    const first = await s.listLists('key_1', { limit: 2 });
    expect(first.map((j) => j.id)).toEqual(['ls_c', 'ls_b']);
    const next = await s.listLists('key_1', { after: 'ls_b', limit: 2 });
    expect(next.map((j) => j.id)).toEqual(['ls_a']);
    expect(await s.deleteList('key_2', 'ls_a')).toBe(false);
    expect(await s.deleteList('key_1', 'ls_a')).toBe(true);
    expect(await s.getList('key_1', 'ls_a')).toBeUndefined();
  });

  it('gives a job to one claimer at a time, the oldest first, until its lease runs out', async () => {
    const s = store();
    await s.createList(job('ls_old', 'key_1', 1));
    await s.createList(job('ls_new', 'key_1', 2));
    const a = await s.claimList('worker_a', at(10), at(70));
    expect(a).toMatchObject({ id: 'ls_old', status: 'running', started_at: at(10) });
    const b = await s.claimList('worker_b', at(11), at(1000));
    expect(b?.id).toBe('ls_new');
    expect(await s.claimList('worker_c', at(12), at(72))).toBeUndefined();
    // Progress renews the lease of its holder only.
    expect(await s.advanceList('ls_old', 'worker_a', progress(4), at(100))).toBe(true);
    expect(await s.advanceList('ls_old', 'worker_b', progress(5), at(100))).toBe(false);
    expect(await s.getList('key_1', 'ls_old')).toMatchObject({ rows: 10, processed: 4, output_bytes: 40 });
    expect(await s.claimList('worker_c', at(90), at(150))).toBeUndefined();
    // Past its lease, another takes it where it stopped, and the first holder's progress is refused.
    const taken = await s.claimList('worker_c', at(101), at(160));
    expect(taken).toMatchObject({ id: 'ls_old', processed: 4, started_at: at(10) });
    expect(await s.advanceList('ls_old', 'worker_a', progress(8), at(200))).toBe(false);
  });

  it('ends, releases and prunes jobs', async () => {
    const s = store();
    await s.createList(job('ls_1', 'key_1', 1));
    await s.createList(job('ls_2', 'key_1', 2));
    await s.claimList('w', at(5), at(65));
    await s.releaseList('ls_1', 'w');
    expect(await s.getList('key_1', 'ls_1')).toMatchObject({ status: 'queued', started_at: at(5) });
    await s.claimList('w', at(6), at(66));
    const end = { status: 'failed' as const, problem: '{"code":"quota_exceeded","detail":"used up"}' };
    expect(await s.finishList('ls_1', 'other', { ...end, finished_at: at(7), expires_at: at(9) })).toBe(
      false,
    );
    expect(await s.finishList('ls_1', 'w', { ...end, finished_at: at(7), expires_at: at(9) })).toBe(true);
    expect(await s.getList('key_1', 'ls_1')).toMatchObject({ status: 'failed', finished_at: at(7) });
    // An ended job is never claimed again.
    const next = await s.claimList('w', at(500), at(560));
    expect(next?.id).toBe('ls_2');
    expect(await s.pruneLists(at(100))).toEqual(['ls_1']);
    expect(await s.getList('key_1', 'ls_1')).toBeUndefined();
    expect(await s.getList('key_1', 'ls_2')).toBeDefined();
  });
}
