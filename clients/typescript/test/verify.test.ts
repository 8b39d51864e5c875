// verifyWebhook: what Standard Webhooks' own library signs verifies, anything else is refused.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0';
const BODY =
  '{"id":"evt_0000000000000042","type":"person.created","timestamp":"2026-11-25T10:00:00.000Z","data":{"person_id":"fp000000000001"}}';

const signed = (secret: string, at = new Date()) => {
  const signature = new Webhook(secret).sign('evt_0000000000000042', at, BODY);
  return {
    'webhook-id': 'evt_0000000000000042',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
};

describe('verifyWebhook', () => {
  it('returns the event a delivery signed by the secret carries', () => {
    expect(verifyWebhook(BODY, signed(SECRET), SECRET)).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(Buffer.from(BODY), new Headers(signed(SECRET)), SECRET)).toMatchObject({
      type: 'person.created',
    });
  });

  it('accepts either of two signatures, as during a rotation', () => {
    const headers = signed(SECRET);
    headers['webhook-signature'] = `${signed(OTHER)['webhook-signature']} ${headers['webhook-signature']}`;
    expect(verifyWebhook(BODY, headers, SECRET)).toBeTruthy();
    expect(verifyWebhook(BODY, headers, OTHER)).toBeTruthy();
  });

  it('refuses another secret, a changed body, a missing header and an old timestamp', () => {
    expect(() => verifyWebhook(BODY, signed(OTHER), SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY.replace('42', '43'), signed(SECRET), SECRET)).toThrow(/signature/);
    const { 'webhook-id': _, ...noId } = signed(SECRET);
    expect(() => verifyWebhook(BODY, noId, SECRET)).toThrow(/webhook-id/);
    const old = signed(SECRET, new Date(Date.now() - 6 * 60_000));
    expect(() => verifyWebhook(BODY, old, SECRET)).toThrow(/5 minutes/);
  });
});
