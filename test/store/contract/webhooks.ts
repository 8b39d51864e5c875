// The webhooks role's contract on every backend: endpoints kept per key, deliveries recorded with the
// cursor that made them, claimed by one at a time under a lease, attempts and outcomes kept.
import { beforeEach, expect, it } from 'vitest';
import type { NewDelivery, StoredEndpoint, WebhookStore } from '../../../src/store/webhooks.js';

const endpoint = (id: string, more: Partial<StoredEndpoint> = {}): StoredEndpoint => ({
  id,
  key_id: 'key_a',
  url: `https://hooks.example.com/${id}`,
  types: ['person.job_changed'],
  watchlist: null,
  description: null,
  disabled: false,
  disabled_reason: null,
  created_at: '2026-11-25T10:00:00.000Z',
  secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
  previous_secret: null,
  previous_expires_at: null,
  after_seq: 0,
  failing_since: null,
  ...more,
});

const delivery = (endpointId: string, seq: number): NewDelivery => ({
  endpoint_id: endpointId,
  event_id: `evt_${String(seq).padStart(16, '0')}`,
  event_type: 'person.job_changed',
  body: `{"id":"evt_${String(seq).padStart(16, '0')}"}`,
});

/** A minute ahead: deliveries recorded now are due by then. */
const BASE = Date.now() + 60_000;
const after = (seconds: number) => new Date(BASE + seconds * 1000);
const NOW = after(0);
const LEASE = after(60);
const attempt = (status: number | null) => ({
  at: NOW.toISOString(),
  status_code: status,
  duration_ms: 12,
  error: status === null ? 'connect ECONNREFUSED' : null,
  response: status === null ? null : 'ok',
});

/** Registers the webhooks contract's tests; `open()` is the suite's fresh, empty store. */
export function webhooksContract(open: () => WebhookStore) {
  let store: WebhookStore;
  beforeEach(() => {
    store = open();
  });

  it('keeps endpoints per key, changes what is given, rotates secrets and removes them', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    await store.createEndpoint(endpoint('wh_2', { key_id: 'key_b', created_at: '2026-11-25T11:00:00.000Z' }));
    expect(await store.getEndpoint('wh_1')).toEqual(endpoint('wh_1'));
    expect((await store.listEndpoints('key_b')).map((e) => e.id)).toEqual(['wh_2']);
    expect((await store.listEndpoints()).map((e) => e.id)).toEqual(['wh_1', 'wh_2']);

    expect(
      await store.updateEndpoint('wh_1', {
        types: ['person.created'],
        description: 'crm',
        disabled: 'manual',
      }),
    ).toBe(true);
    const changed = await store.getEndpoint('wh_1');
    expect(changed).toMatchObject({ types: ['person.created'], description: 'crm', disabled: true });
    expect(changed?.disabled_reason).toBe('manual');
    expect(changed?.url).toBe('https://hooks.example.com/wh_1');
    await store.updateEndpoint('wh_1', { disabled: null, watchlist: 'wl_1' });
    expect(await store.getEndpoint('wh_1')).toMatchObject({
      disabled: false,
      disabled_reason: null,
      watchlist: 'wl_1',
    });
    expect(await store.updateEndpoint('wh_9', { url: 'https://x.example' })).toBe(false);

    const expires = new Date('2026-11-26T12:00:00.000Z');
    expect(await store.rotateEndpointSecret('wh_1', 'whsec_bmV3', expires)).toBe(true);
    expect(await store.getEndpoint('wh_1')).toMatchObject({
      secret: 'whsec_bmV3',
      previous_secret: endpoint('wh_1').secret,
      previous_expires_at: expires.toISOString(),
    });

    expect(await store.deleteEndpoint('wh_1')).toBe(true);
    expect(await store.deleteEndpoint('wh_1')).toBe(false);
    expect(await store.getEndpoint('wh_1')).toBeUndefined();
  });

  it('moves the dispatch cursor only from where it was, with the deliveries it made', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    expect(await store.dispatchCursor()).toBe(0);
    expect(await store.enqueueDeliveries(0, 2, [delivery('wh_1', 1), delivery('wh_1', 2)])).toBe(true);
    // A second dispatcher that read the cursor at 0 too records nothing.
    expect(await store.enqueueDeliveries(0, 2, [delivery('wh_1', 1)])).toBe(false);
    expect(await store.dispatchCursor()).toBe(2);
    const listed = await store.listDeliveries('wh_1', { limit: 10 });
    expect(listed.map((d) => [d.event_id, d.status, d.attempts])).toEqual([
      [delivery('wh_1', 1).event_id, 'pending', []],
      [delivery('wh_1', 2).event_id, 'pending', []],
    ]);
    expect(await store.listDeliveries('wh_1', { limit: 10, after: listed[0]!.id })).toHaveLength(1);
    expect(await store.listDeliveries('wh_1', { limit: 10, status: 'delivered' })).toEqual([]);
  });

  it('leases each due delivery to one claim at a time, at most so many per endpoint, oldest first', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    await store.createEndpoint(endpoint('wh_2'));
    const owed = [1, 2, 3, 4].flatMap((seq) => [delivery('wh_1', seq), delivery('wh_2', seq)]);
    const at = await store.dispatchCursor();
    expect(await store.enqueueDeliveries(at, at + 4, owed)).toBe(true);
    const first = await store.claimDeliveries(NOW, LEASE, 100, 2);
    expect(first.map((d) => [d.endpoint_id, d.event_id])).toEqual([
      ['wh_1', delivery('wh_1', 1).event_id],
      ['wh_2', delivery('wh_2', 1).event_id],
      ['wh_1', delivery('wh_1', 2).event_id],
      ['wh_2', delivery('wh_2', 2).event_id],
    ]);
    expect(first[0]).toMatchObject({ body: delivery('wh_1', 1).body, attempts: 0 });
    // Both endpoints have 2 leased: nothing more until one ends.
    expect(await store.claimDeliveries(NOW, LEASE, 100, 2)).toEqual([]);
    await store.recordAttempts([
      { delivery: first[0]!, attempt: attempt(200), outcome: { status: 'delivered' }, health: 'succeeded' },
    ]);
    expect((await store.claimDeliveries(NOW, LEASE, 100, 2)).map((d) => d.event_id)).toEqual([
      delivery('wh_1', 3).event_id,
    ]);
    // Leases that ran out (their process died) are claimed again; a delivered one never is.
    const later = await store.claimDeliveries(after(120), after(180), 100, 10);
    expect(later).toHaveLength(7);
    expect(later.map((d) => d.id)).not.toContain(first[0]!.id);
  });

  it('leaves an endpoint to the claimer holding its leases: another gets none of it until they end', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    await store.createEndpoint(endpoint('wh_2'));
    const owed = [1, 2, 3, 4, 5].flatMap((seq) => [delivery('wh_1', seq), delivery('wh_2', seq)]);
    const at = await store.dispatchCursor();
    expect(await store.enqueueDeliveries(at, at + 5, owed)).toBe(true);
    const events = (claimed: { event_id: string }[]) => claimed.map((d) => d.event_id);
    // A holds wh_1's oldest two; B may not take wh_1's third, though wh_1 is under B's own bound.
    const a = await store.claimDeliveries(NOW, LEASE, 2, 3, 'claimer-a');
    expect(a.map((d) => d.endpoint_id)).toEqual(['wh_1', 'wh_2']);
    const b = await store.claimDeliveries(NOW, LEASE, 100, 3, 'claimer-b');
    expect(b).toEqual([]);
    // A's own leases count towards its bound: one more of each.
    expect(events(await store.claimDeliveries(NOW, LEASE, 100, 2, 'claimer-a'))).toEqual([
      delivery('wh_1', 2).event_id,
      delivery('wh_2', 2).event_id,
    ]);
    // Once A's attempts at wh_2 are recorded, wh_2 is free for B, in order; wh_1 is still A's.
    const held = await store.listDeliveries('wh_2', { limit: 2 });
    await store.recordAttempts(
      held.map((d) => ({
        delivery: { ...d, attempts: 0, body: '' },
        attempt: attempt(204),
        outcome: { status: 'delivered' as const },
        health: 'succeeded' as const,
      })),
    );
    expect(events(await store.claimDeliveries(NOW, LEASE, 100, 2, 'claimer-b'))).toEqual([
      delivery('wh_2', 3).event_id,
      delivery('wh_2', 4).event_id,
    ]);
    // B gives wh_2's fourth back unstarted; A cannot end B's lease of the third, so wh_2 is still B's.
    const [third, fourth] = await store.listDeliveries('wh_2', { limit: 2, after: held[1]!.id });
    await store.releaseDeliveries([fourth!.id], 'claimer-b');
    await store.releaseDeliveries([third!.id], 'claimer-a');
    expect(await store.claimDeliveries(NOW, LEASE, 100, 2, 'claimer-a')).toEqual([]);
    expect(events(await store.claimDeliveries(NOW, LEASE, 100, 3, 'claimer-b'))).toEqual([
      delivery('wh_2', 4).event_id,
      delivery('wh_2', 5).event_id,
    ]);
    // When the leases run out (both died), the next claimer takes each endpoint from its oldest not delivered.
    expect(events(await store.claimDeliveries(after(61), after(120), 100, 1, 'claimer-c'))).toEqual([
      delivery('wh_1', 1).event_id,
      delivery('wh_2', 3).event_id,
    ]);
  });

  it('records attempts: a retry is due at its time, failures mark the endpoint, a disabled one is not claimed', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    const at = await store.dispatchCursor();
    expect(await store.enqueueDeliveries(at, at + 1, [delivery('wh_1', 1)])).toBe(true);
    const [claimed] = await store.claimDeliveries(NOW, LEASE, 10, 10);
    const retryAt = after(5);
    await store.recordAttempts([
      {
        delivery: claimed!,
        attempt: attempt(null),
        outcome: { status: 'pending', next_attempt_at: retryAt },
        health: 'failed',
      },
    ]);
    expect((await store.getEndpoint('wh_1'))?.failing_since).toBe(NOW.toISOString());
    expect(await store.claimDeliveries(NOW, LEASE, 10, 10)).toEqual([]);
    const [again] = await store.claimDeliveries(retryAt, LEASE, 10, 10);
    expect(again).toMatchObject({ id: claimed!.id, attempts: 1 });
    await store.recordAttempts([
      { delivery: again!, attempt: attempt(410), outcome: { status: 'failed' }, health: 'gone' },
    ]);
    const [listed] = await store.listDeliveries('wh_1', { limit: 10 });
    expect(listed).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(listed!.attempts.map((a) => a.status_code)).toEqual([null, 410]);
    expect(await store.getEndpoint('wh_1')).toMatchObject({ disabled: true, disabled_reason: 'gone' });

    expect(await store.retryDelivery('wh_1', listed!.id, NOW)).toBe(true);
    expect(await store.retryDelivery('wh_2', listed!.id, NOW)).toBe(false);
    // Pending again, but its endpoint is disabled: not claimed, nor counted as owed.
    expect(await store.claimDeliveries(NOW, LEASE, 10, 10)).toEqual([]);
    expect(await store.deliveryBacklog()).toEqual({ pending: 0, oldest: null });
    await store.updateEndpoint('wh_1', { disabled: null });
    expect((await store.deliveryBacklog()).pending).toBe(1);
    const [retried] = await store.claimDeliveries(NOW, LEASE, 10, 10);
    await store.recordAttempts([
      { delivery: retried!, attempt: attempt(204), outcome: { status: 'delivered' }, health: 'succeeded' },
    ]);
    expect(await store.getEndpoint('wh_1')).toMatchObject({ failing_since: null, disabled: false });
  });

  it('makes a delivery due now, leased to its maker when asked', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    const made = await store.addDelivery(delivery('wh_1', 7), NOW, LEASE);
    expect(made).toMatchObject({ endpoint_id: 'wh_1', attempts: 0, body: delivery('wh_1', 7).body });
    expect(await store.claimDeliveries(NOW, LEASE, 10, 10)).toEqual([]);
    await store.addDelivery(delivery('wh_1', 8), NOW);
    expect((await store.claimDeliveries(NOW, LEASE, 10, 10)).map((d) => d.event_id)).toEqual([
      delivery('wh_1', 8).event_id,
    ]);
  });

  it('when the limit binds, claims the oldest of every endpoint before the second of any', async () => {
    for (const id of ['wh_1', 'wh_2', 'wh_3']) await store.createEndpoint(endpoint(id));
    const owed = [1, 2, 3].flatMap((seq) => ['wh_1', 'wh_2', 'wh_3'].map((id) => delivery(id, seq)));
    const at = await store.dispatchCursor();
    // wh_1's three first: it alone would fill a limit of 4.
    const byEndpoint = [...owed].sort((a, b) => a.endpoint_id.localeCompare(b.endpoint_id));
    expect(await store.enqueueDeliveries(at, at + 3, byEndpoint)).toBe(true);
    const claimed = await store.claimDeliveries(NOW, LEASE, 4, 10);
    expect(claimed.map((d) => [d.endpoint_id, d.event_id])).toEqual([
      ['wh_1', delivery('wh_1', 1).event_id],
      ['wh_1', delivery('wh_1', 2).event_id],
      ['wh_2', delivery('wh_2', 1).event_id],
      ['wh_3', delivery('wh_3', 1).event_id],
    ]);
    expect((await store.getEndpoints(['wh_3', 'wh_9', 'wh_1'])).map((e) => e.id).sort()).toEqual([
      'wh_1',
      'wh_3',
    ]);
  });

  it('records many attempts at once, each endpoint left as if they were recorded one by one', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    await store.createEndpoint(endpoint('wh_2'));
    const owed = [1, 2, 3].flatMap((seq) => [delivery('wh_1', seq), delivery('wh_2', seq)]);
    const at = await store.dispatchCursor();
    expect(await store.enqueueDeliveries(at, at + 3, owed)).toBe(true);
    const claimed = await store.claimDeliveries(NOW, LEASE, 100, 10);
    const of = (id: string, n: number) => claimed.filter((d) => d.endpoint_id === id)[n]!;
    const at1 = after(1).toISOString();
    const at2 = after(2).toISOString();
    const retryAt = after(5);
    await store.recordAttempts([
      // wh_1 fails, then succeeds, then fails again: failing since the last failure.
      { delivery: of('wh_1', 0), attempt: attempt(500), outcome: { status: 'failed' }, health: 'failed' },
      {
        delivery: of('wh_1', 1),
        attempt: attempt(200),
        outcome: { status: 'delivered' },
        health: 'succeeded',
      },
      {
        delivery: of('wh_1', 2),
        attempt: { ...attempt(null), at: at2 },
        outcome: { status: 'pending', next_attempt_at: retryAt },
        health: 'failed',
      },
      // wh_2 succeeds, fails, then answers 410: failing since its first failure after the success, and gone.
      {
        delivery: of('wh_2', 0),
        attempt: attempt(204),
        outcome: { status: 'delivered' },
        health: 'succeeded',
      },
      {
        delivery: of('wh_2', 1),
        attempt: { ...attempt(503), at: at1 },
        outcome: { status: 'failed' },
        health: 'failed',
      },
      {
        delivery: of('wh_2', 2),
        attempt: { ...attempt(410), at: at2 },
        outcome: { status: 'failed' },
        health: 'gone',
      },
    ]);
    expect(await store.getEndpoint('wh_1')).toMatchObject({ failing_since: at2, disabled: false });
    expect(await store.getEndpoint('wh_2')).toMatchObject({ failing_since: at1, disabled_reason: 'gone' });
    const listed = await store.listDeliveries('wh_1', { limit: 10 });
    expect(listed.map((d) => [d.status, d.attempts.map((a) => a.status_code)])).toEqual([
      ['failed', [500]],
      ['delivered', [200]],
      ['pending', [null]],
    ]);
    expect(listed[2]!.next_attempt_at).toBe(retryAt.toISOString());
    // Every lease ended: the retry is claimed again when due, and nothing else.
    expect((await store.claimDeliveries(retryAt, after(90), 100, 10)).map((d) => d.id)).toEqual([
      listed[2]!.id,
    ]);
  });
}
