// The dispatcher on each backend, with a receiver on this machine verifying as Standard Webhooks'
// library does: every owed event delivered in order and signed, retries, 410, rotation, lost claims, and
// two dispatchers on one PostgreSQL delivering each event once.
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { renderEvent } from '../../src/changes/render.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { WatchlistStore } from '../../src/store/watchlists.js';
import type { WebhookStore } from '../../src/store/webhooks.js';
import { type DispatcherOptions, WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { webhookPoster } from '../../src/webhooks/post.js';
import { newSecret } from '../../src/webhooks/sign.js';
import { jobChange, MemoryChanges } from '../helpers/memory-changes.js';
import { BACKENDS } from '../store/backends.js';
import { endpointAt, type Received, startReceiver, until } from './receiver.js';

/** Retries 200 ms apart: a test sees each attempt. */
const SHORT = [0.2, 0.2, 0.2];

/** Verifies a delivery as a receiver would, with the `standardwebhooks` package. */
const verified = (secret: string, received: Received) =>
  new Webhook(secret).verify(received.body, received.headers as Record<string, string>);

/** A dispatcher as the tests run it: any address, short retries, the log looked at every 50 ms. */
const dispatcherOn = (
  store: WebhookStore & WatchlistStore,
  log: MemoryChanges,
  more: Partial<DispatcherOptions> = {},
) =>
  new WebhookDispatcher({
    store,
    changes: log,
    watchlists: store,
    poster: webhookPoster({ allowPrivate: true }),
    schedule: SHORT,
    pollMs: 50,
    ...more,
  });

/** A receiver's answer that comes `ms` later. */
const answerAfter =
  (ms: number) =>
  (_: Received, response: ServerResponse): null => {
    setTimeout(() => response.end('thanks'), ms);
    return null;
  };

// A store in a file and one on PostgreSQL: delivery needs no other of the contract's backends.
const DELIVERING = BACKENDS.filter((backend) => backend.name === 'sqlite' || backend.name === 'postgres');

for (const backend of DELIVERING) {
  describe(`webhook delivery on ${backend.name}`, () => {
    backend.prepare?.();
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
      await backend.cleanup?.();
    });

    async function setUp(answer?: Parameters<typeof startReceiver>[0]) {
      const store = await backend.open();
      closing.push(() => store.close());
      const receiver = await startReceiver(answer);
      closing.push(receiver.close);
      const log = new MemoryChanges();
      const dispatcher = (leaseMs?: number) => {
        const made = dispatcherOn(store, log, leaseMs === undefined ? {} : { leaseMs });
        closing.push(() => made.close());
        return made;
      };
      return { store, receiver, log, dispatcher };
    }

    it('delivers every owed event once, in order, signed as Standard Webhooks verifies, the body as the feed lists it', async () => {
      const { store, receiver, log, dispatcher } = await setUp();
      log.append([jobChange(0)]); // before the endpoint: not owed
      const endpoint = endpointAt(receiver.url, { after_seq: 1 });
      await store.createEndpoint(endpoint);
      await store.createEndpoint(endpointAt(receiver.url, { types: ['person.created'], after_seq: 1 }));
      dispatcher().start();
      const logged = log.append(Array.from({ length: 25 }, (_, i) => jobChange(i + 1)));
      await until(() => receiver.received.length >= 25);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(25);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(25);
      expect([...ids].sort()).toEqual(logged.map((e) => renderEvent(e).id));
      for (const received of receiver.received) {
        expect(received.headers['content-type']).toBe('application/json');
        const event = logged.find((e) => renderEvent(e).id === received.headers['webhook-id'])!;
        expect(received.body).toBe(JSON.stringify(renderEvent(event)));
        expect(verified(endpoint.secret, received)).toEqual(renderEvent(event));
      }
      await until(async () => (await store.deliveryBacklog()).pending === 0);
      const deliveries = await store.listDeliveries(endpoint.id, { limit: 100 });
      expect(deliveries.every((d) => d.status === 'delivered' && d.attempts.length === 1)).toBe(true);
      expect(deliveries[0]!.attempts[0]).toMatchObject({ status_code: 200, error: null, response: 'thanks' });
    });

    it("delivers to a watchlist's endpoint only the events of its people and companies", async () => {
      const { store, receiver, log, dispatcher } = await setUp();
      await store.createWatchlist({
        id: 'wl_crm',
        key_id: 'key_a',
        name: 'crm',
        created_at: new Date().toISOString(),
      });
      await store.addWatchEntries('wl_crm', [
        { kind: 'person', record_id: 'fp000000000002', ref: null },
        { kind: 'company', record_id: 'f000000000009', ref: null },
      ]);
      const endpoint = endpointAt(receiver.url, { watchlist: 'wl_crm' });
      await store.createEndpoint(endpoint);
      dispatcher().start();
      const joined = jobChange(7);
      if (joined.type === 'person.job_changed') joined.data.current!.company_id = 'f000000000009';
      const logged = log.append([jobChange(1), jobChange(2), jobChange(3), joined]);
      await until(() => receiver.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ids = receiver.received.map((r) => r.headers['webhook-id']).sort();
      expect(ids).toEqual([renderEvent(logged[1]!).id, renderEvent(logged[3]!).id]);
    });

    it('retries a receiver that is down with the same webhook-id until it is up', async () => {
      let up = false;
      const { store, receiver, log, dispatcher } = await setUp(() => (up ? 200 : 503));
      const endpoint = endpointAt(receiver.url);
      await store.createEndpoint(endpoint);
      dispatcher().start();
      log.append([jobChange(1)]);
      await until(() => receiver.received.length >= 2);
      up = true;
      await until(
        async () => (await store.listDeliveries(endpoint.id, { limit: 1 }))[0]?.status === 'delivered',
      );
      const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      for (const received of receiver.received) verified(endpoint.secret, received);
      const [delivery] = await store.listDeliveries(endpoint.id, { limit: 1 });
      expect(delivery!.attempts.map((a) => a.status_code)).toEqual([
        ...Array(delivery!.attempts.length - 1).fill(503),
        200,
      ]);
      expect((await store.getEndpoint(endpoint.id))?.failing_since).toBeNull();
    });

    it('marks a delivery failed after the last retry, and a 410 disables the endpoint', async () => {
      const { store, receiver, log, dispatcher } = await setUp((r) =>
        r.body.includes('fp000000000001') ? 500 : 410,
      );
      const endpoint = endpointAt(receiver.url);
      await store.createEndpoint(endpoint);
      dispatcher().start();
      log.append([jobChange(1)]);
      await until(
        async () => (await store.listDeliveries(endpoint.id, { limit: 1 }))[0]?.status === 'failed',
      );
      const [failed] = await store.listDeliveries(endpoint.id, { limit: 1 });
      expect(failed!.attempts).toHaveLength(SHORT.length + 1);
      log.append([jobChange(2)]);
      await until(async () => (await store.getEndpoint(endpoint.id))?.disabled === true);
      expect((await store.getEndpoint(endpoint.id))?.disabled_reason).toBe('gone');
      const before = receiver.received.length;
      log.append([jobChange(3)]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(before);
    });

    it('signs with both secrets while a rotation overlaps, each valid on its own', async () => {
      const { store, receiver, log, dispatcher } = await setUp();
      const endpoint = endpointAt(receiver.url);
      await store.createEndpoint(endpoint);
      const rotated = newSecret();
      await store.rotateEndpointSecret(endpoint.id, rotated, new Date(Date.now() + 24 * 3600_000));
      dispatcher().start();
      log.append([jobChange(1)]);
      await until(() => receiver.received.length >= 1);
      const [received] = receiver.received;
      expect(String(received!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verified(rotated, received!)).toBeTruthy();
      expect(verified(endpoint.secret, received!)).toBeTruthy();
    });

    it('delivers what a dispatcher that died had claimed, once its lease ends', async () => {
      const { store, receiver, log, dispatcher } = await setUp();
      const endpoint = endpointAt(receiver.url);
      await store.createEndpoint(endpoint);
      log.append(Array.from({ length: 5 }, (_, i) => jobChange(i + 1)));
      // The first dispatcher recorded the deliveries and claimed them, then died before any attempt.
      const first = dispatcher();
      await first.enqueue();
      const now = new Date();
      expect(await store.claimDeliveries(now, new Date(now.getTime() + 500), 10, 10)).toHaveLength(5);
      dispatcher(500).start();
      await until(() => receiver.received.length >= 5);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(5);
    });

    it('attempts again, with the same webhook-id, what a dispatcher that died had attempted but not recorded', async () => {
      const { store, receiver, log, dispatcher } = await setUp();
      const endpoint = endpointAt(receiver.url);
      await store.createEndpoint(endpoint);
      // The first dispatcher makes its attempts, then dies before it records them: recording never ends.
      const dying = new Proxy(store, {
        get: (target, name) =>
          name === 'recordAttempts'
            ? () => new Promise<void>(() => {})
            : ((value: unknown) => (typeof value === 'function' ? value.bind(target) : value))(
                Reflect.get(target, name),
              ),
      });
      const poster = webhookPoster({ allowPrivate: true });
      const first = new WebhookDispatcher({
        store: dying,
        changes: log,
        watchlists: store,
        poster,
        schedule: SHORT,
        pollMs: 50,
        leaseMs: 500,
      });
      first.start();
      log.append(Array.from({ length: 3 }, (_, i) => jobChange(i + 1)));
      await until(() => receiver.received.length >= 3);
      void first.close(); // stops it claiming; its unrecorded attempts are never recorded
      poster.close();
      dispatcher(500).start();
      await until(async () => (await store.deliveryBacklog()).pending === 0);
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toHaveLength(6);
      expect(ids.slice(3).sort()).toEqual(ids.slice(0, 3).sort());
      const deliveries = await store.listDeliveries(endpoint.id, { limit: 10 });
      expect(deliveries.map((d) => [d.status, d.attempts.length])).toEqual([
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
      ]);
    });

    it('gives back, when it stops, what it claimed and had not started: the next dispatcher sends it at once', async () => {
      // Each answer takes 50 ms: the first dispatcher, one attempt at a time, holds most of its claim queued.
      const { store, receiver, log, dispatcher } = await setUp(answerAfter(50));
      await store.createEndpoint(endpointAt(receiver.url));
      const first = dispatcherOn(store, log, { perEndpoint: 1 });
      first.start();
      const logged = log.append(Array.from({ length: 12 }, (_, i) => jobChange(i + 1)));
      await until(() => receiver.received.length >= 2);
      await first.close();
      const sent = receiver.received.length;
      expect(sent).toBeLessThan(12);
      // Its claims' leases last 30 s: only their release lets the next dispatcher have them now.
      dispatcher().start();
      await until(() => receiver.received.length >= 12, 5000);
      await until(async () => (await store.deliveryBacklog()).pending === 0, 5000);
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toEqual(logged.map((e) => renderEvent(e).id));
    });

    it('meets a store that fails once a wake, not again and again', async () => {
      const { store, receiver, log } = await setUp();
      await store.createEndpoint(endpointAt(receiver.url));
      // The store is down: every read of the cursor fails (not busy: nothing to wait out).
      const down = new Proxy(store, {
        get: (target, name) =>
          name === 'dispatchCursor'
            ? () => Promise.reject(new Error('connection refused'))
            : ((value: unknown) => (typeof value === 'function' ? value.bind(target) : value))(
                Reflect.get(target, name),
              ),
      });
      const errors: unknown[] = [];
      const failing = dispatcherOn(down, log, { pollMs: 100, onError: (error) => errors.push(error) });
      closing.push(() => failing.close());
      failing.start();
      log.append([jobChange(1)]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Woken at start, by the poll (every 100 ms) and by the log: a handful, not a loop.
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.length).toBeLessThanOrEqual(12);
    });

    const { openAnother } = backend;
    if (openAnother) {
      it('two dispatchers on one database attempt each event once', async () => {
        const { store, receiver, log, dispatcher } = await setUp();
        const endpoint = endpointAt(receiver.url);
        await store.createEndpoint(endpoint);
        const other = await openAnother();
        closing.push(() => other.close());
        const second = dispatcherOn(other, log);
        closing.push(() => second.close());
        dispatcher().start();
        second.start();
        log.append(Array.from({ length: 200 }, (_, i) => jobChange(i + 1)));
        await until(() => receiver.received.length >= 200);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(receiver.received).toHaveLength(200);
        expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(200);
      });
    }
  });
}

describe('webhook delivery while another process holds SQLite’s write lock', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('goes on attempting what it claimed, and records it once the lock is free', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-dispatch-'));
    dirs.push(dir);
    const path = join(dir, 'enrich.db');
    // As the dispatch thread opens it: writes fail busy at once, and the dispatcher retries them.
    const store = openSqliteStore(path, { servingIndex: false, busyTimeoutMs: 5 });
    // Each answer takes 20 ms, one at a time: 30 deliveries take over half a second.
    const receiver = await startReceiver(answerAfter(20));
    const log = new MemoryChanges();
    const dispatcher = dispatcherOn(store, log, { perEndpoint: 1 });
    const other = new Database(path);
    try {
      await store.createEndpoint(endpointAt(receiver.url));
      dispatcher.start();
      const logged = log.append(Array.from({ length: 30 }, (_, i) => jobChange(i + 1)));
      await until(() => receiver.received.length >= 1);
      // Another process (a refresh) takes the write lock for 400 ms.
      other.exec('BEGIN IMMEDIATE');
      const atLock = receiver.received.length;
      await new Promise((resolve) => setTimeout(resolve, 400));
      const duringLock = receiver.received.length - atLock;
      other.exec('COMMIT');
      expect(duringLock).toBeGreaterThanOrEqual(8);
      await until(async () => (await store.deliveryBacklog()).pending === 0);
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toEqual(logged.map((e) => renderEvent(e).id));
    } finally {
      other.close();
      await dispatcher.close();
      await store.close();
      await receiver.close();
    }
  });
});
