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
    await store.recordAttempt(first[0]!, attempt(200), { status: 'delivered' }, 'succeeded');
    expect((await store.claimDeliveries(NOW, LEASE, 100, 2)).map((d) => d.event_id)).toEqual([
      delivery('wh_1', 3).event_id,
    ]);
    // Leases that ran out (their process died) are claimed again; a delivered one never is.
    const later = await store.claimDeliveries(after(120), after(180), 100, 10);
    expect(later).toHaveLength(7);
    expect(later.map((d) => d.id)).not.toContain(first[0]!.id);
  });

  it('records attempts: a retry is due at its time, failures mark the endpoint, a disabled one is not claimed', async () => {
    await store.createEndpoint(endpoint('wh_1'));
    const at = await store.dispatchCursor();
    expect(await store.enqueueDeliveries(at, at + 1, [delivery('wh_1', 1)])).toBe(true);
    const [claimed] = await store.claimDeliveries(NOW, LEASE, 10, 10);
    const retryAt = after(5);
    await store.recordAttempt(
      claimed!,
      attempt(null),
      { status: 'pending', next_attempt_at: retryAt },
      'failed',
    );
    expect((await store.getEndpoint('wh_1'))?.failing_since).toBe(NOW.toISOString());
    expect(await store.claimDeliveries(NOW, LEASE, 10, 10)).toEqual([]);
    const [again] = await store.claimDeliveries(retryAt, LEASE, 10, 10);
    expect(again).toMatchObject({ id: claimed!.id, attempts: 1 });
    await store.recordAttempt(again!, attempt(410), { status: 'failed' }, 'gone');
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
    await store.recordAttempt(retried!, attempt(204), { status: 'delivered' }, 'succeeded');
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
}
