// The client's webhook methods against a real server: make, list, change, test, page deliveries, retry,
// rotate, delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from '../../../test/helpers/app.js';
import { Enrich, EnrichError } from '../src/index.js';

let t: TestApp & { url: string };
let enrich: Enrich;
beforeAll(async () => {
  t = await listeningApp();
  const key = await t.newKey({ scopes: ['changes:read', 'changes:write'] });
  enrich = new Enrich({ baseUrl: t.url, token: key.token });
});
afterAll(() => t.close());

describe('webhooks', () => {
  it('makes an endpoint, tests it, pages and retries its deliveries, rotates its secret and deletes it', async () => {
    // A name that resolves to loopback: accepted, and refused when a delivery connects.
    const { endpoint, secret } = await enrich.createWebhook({
      url: 'http://localhost:9/hook',
      types: ['person.job_changed'],
      description: 'CRM',
    });
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ url: 'http://localhost:9/hook', disabled: false, description: 'CRM' });
    expect((await enrich.webhooks()).map((e) => e.id)).toEqual([endpoint.id]);
    expect(await enrich.webhook(endpoint.id)).toEqual(endpoint);

    const tested = await enrich.testWebhook(endpoint.id);
    expect(tested.attempt).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/refused address/),
    });
    const page = await enrich.webhookDeliveries(endpoint.id, { status: 'pending' });
    expect(page).toMatchObject({
      has_more: false,
      data: [{ id: tested.delivery_id, event_type: 'webhook.test' }],
    });
    await enrich.retryWebhookDelivery(endpoint.id, tested.delivery_id);

    const changed = await enrich.updateWebhook(endpoint.id, { disabled: true, types: ['person.created'] });
    expect(changed).toMatchObject({ disabled: true, disabled_reason: 'manual', types: ['person.created'] });
    const rotated = await enrich.rotateWebhookSecret(endpoint.id);
    expect(rotated.secret).not.toBe(secret);
    await enrich.deleteWebhook(endpoint.id);
    await expect(enrich.webhook(endpoint.id)).rejects.toBeInstanceOf(EnrichError);
  });
});
