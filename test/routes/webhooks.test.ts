// /v1/webhooks…: a key's endpoints made, listed, changed, rotated, tested and removed; its deliveries
// listed and retried; another key's endpoints invisible; the address rules at creation.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { startReceiver } from '../webhooks/receiver.js';

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  let writer: { auth: string; id: string };
  let reader: { auth: string; id: string };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let status = 200;
  beforeAll(async () => {
    t = await testApp(backend, { webhooks: { allowPrivate: true, retrySchedule: [60] } });
    writer = await t.newKey({ scopes: ['changes:write'] });
    reader = await t.newKey({ scopes: ['changes:read'] });
    receiver = await startReceiver(() => status);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const call = (auth: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: auth }, ...(payload ? { payload } : {}) });

  const create = async (more: object = {}) => {
    const res = await call(writer.auth, 'POST', '/v1/webhooks', {
      url: receiver.url,
      types: ['person.job_changed', 'person.title_changed'],
      ...more,
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { endpoint: { id: string }; secret: string };
  };

  it('makes an endpoint and shows its whsec_ secret once', async () => {
    const made = await create({ description: 'CRM' });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(made.endpoint).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url,
      types: ['person.job_changed', 'person.title_changed'],
      watchlist: null,
      description: 'CRM',
      disabled: false,
      disabled_reason: null,
      created_at: expect.any(String),
    });
    const shown = await call(reader.auth, 'GET', `/v1/webhooks/${made.endpoint.id}`);
    expect(shown.statusCode).toBe(404); // the reader is another key
    const own = await call(writer.auth, 'GET', `/v1/webhooks/${made.endpoint.id}`);
    expect(own.json()).toEqual(made.endpoint);
    expect(JSON.stringify(own.json())).not.toContain('whsec_');
    const listed = await call(writer.auth, 'GET', '/v1/webhooks');
    expect(listed.json().data.map((e: { id: string }) => e.id)).toContain(made.endpoint.id);
    expect((await call(reader.auth, 'GET', '/v1/webhooks')).json()).toEqual({ data: [] });
  });

  it('refuses what is not a webhook: bad types, no URL, a reader changing, an unknown watchlist', async () => {
    const bad = await call(writer.auth, 'POST', '/v1/webhooks', {
      url: receiver.url,
      types: ['person.moved'],
    });
    expect(bad.statusCode).toBe(400);
    expect(
      (await call(writer.auth, 'POST', '/v1/webhooks', { url: 'ftp://x.example', types: ['person.created'] }))
        .statusCode,
    ).toBe(400);
    expect(
      (await call(reader.auth, 'POST', '/v1/webhooks', { url: receiver.url, types: ['person.created'] }))
        .statusCode,
    ).toBe(403);
    const unknown = await call(writer.auth, 'POST', '/v1/webhooks', {
      url: receiver.url,
      types: ['person.created'],
      watchlist: 'wl_nope',
    });
    expect(unknown.statusCode).toBe(404);
  });

  it("takes the key's own watchlist, and not another key's", async () => {
    const list = await call(writer.auth, 'POST', '/v1/watchlists', { name: 'crm' });
    expect(list.statusCode).toBe(201);
    const { id } = list.json();
    const made = await create({ watchlist: id });
    expect(made.endpoint).toMatchObject({ watchlist: id });
    const other = await t.newKey({ scopes: ['changes:write'] });
    const refused = await call(other.auth, 'POST', '/v1/webhooks', {
      url: receiver.url,
      types: ['person.created'],
      watchlist: id,
    });
    expect(refused.statusCode).toBe(404);
  });

  it('changes, disables and removes an endpoint', async () => {
    const { endpoint } = await create();
    const patched = await call(writer.auth, 'PATCH', `/v1/webhooks/${endpoint.id}`, {
      types: ['person.created'],
      disabled: true,
    });
    expect(patched.json()).toMatchObject({
      types: ['person.created'],
      disabled: true,
      disabled_reason: 'manual',
    });
    const enabled = await call(writer.auth, 'PATCH', `/v1/webhooks/${endpoint.id}`, { disabled: false });
    expect(enabled.json()).toMatchObject({ disabled: false, disabled_reason: null });
    expect((await call(reader.auth, 'DELETE', `/v1/webhooks/${endpoint.id}`)).statusCode).toBe(403);
    expect((await call(writer.auth, 'DELETE', `/v1/webhooks/${endpoint.id}`)).statusCode).toBe(204);
    expect((await call(writer.auth, 'GET', `/v1/webhooks/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('delivers a signed webhook.test event now, and lists and retries the delivery', async () => {
    const made = await create();
    const before = receiver.received.length;
    const tested = await call(writer.auth, 'POST', `/v1/webhooks/${made.endpoint.id}/test`);
    expect(tested.statusCode).toBe(200);
    expect(tested.json()).toMatchObject({ attempt: { status_code: 200, error: null } });
    const received = receiver.received[before]!;
    const event = new Webhook(made.secret).verify(received.body, received.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'webhook.test', data: { endpoint_id: made.endpoint.id } });
    expect(received.headers['webhook-id']).toBe(tested.json().event_id);

    status = 500;
    const failing = await call(writer.auth, 'POST', `/v1/webhooks/${made.endpoint.id}/test`);
    status = 200;
    expect(failing.json().attempt.status_code).toBe(500);
    const pending = await call(
      writer.auth,
      'GET',
      `/v1/webhooks/${made.endpoint.id}/deliveries?status=pending`,
    );
    const page = pending.json();
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ status: 'pending', event_type: 'webhook.test' });
    expect(page.data[0].attempts[0]).toMatchObject({ status_code: 500, response: 'thanks' });
    const all = await call(writer.auth, 'GET', `/v1/webhooks/${made.endpoint.id}/deliveries?limit=1`);
    expect(all.json()).toMatchObject({ has_more: true, next: all.json().data[0].id });

    const retry = `/v1/webhooks/${made.endpoint.id}/deliveries/${page.data[0].id}/retry`;
    expect((await call(writer.auth, 'POST', retry)).statusCode).toBe(202);
    expect(
      (await call(writer.auth, 'POST', `/v1/webhooks/${made.endpoint.id}/deliveries/whd_999999/retry`))
        .statusCode,
    ).toBe(404);
  });

  it('rotates the secret: both sign until the overlap ends', async () => {
    const made = await create();
    const rotated = await call(writer.auth, 'POST', `/v1/webhooks/${made.endpoint.id}/rotate-secret`);
    const { secret } = rotated.json();
    expect(secret).not.toBe(made.secret);
    const before = receiver.received.length;
    await call(writer.auth, 'POST', `/v1/webhooks/${made.endpoint.id}/test`);
    const received = receiver.received[before]!;
    const headers = received.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(received.body, headers)).toBeTruthy();
    expect(new Webhook(made.secret).verify(received.body, headers)).toBeTruthy();
  });
});

describe('the address rules at creation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  it.each([
    'http://127.0.0.1/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/',
    'http://[::ffff:10.0.0.1]/',
  ])('refuses %s unless private addresses are allowed', async (url) => {
    const key = await t.newKey({ scopes: ['changes:write'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { authorization: key.auth },
      payload: { url, types: ['person.created'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/loopback, private/);
  });
});
