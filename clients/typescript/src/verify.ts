// Verifying a webhook as its receiver: Standard Webhooks 1.0 signatures, checked in constant time.
/// <reference types="node" />
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery that is not signed by the secret, or signed too long ago (or ahead). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** How far a delivery's `webhook-timestamp` may be from now: 5 minutes. */
const TOLERANCE_SECONDS = 5 * 60;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  const value =
    headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const one = Array.isArray(value) ? value[0] : value;
  if (one === undefined || one === null || one === '')
    throw new WebhookVerificationError(`no ${name} header`);
  return one;
}

/**
 * The event a webhook delivered, once its signature is checked against `secret` (`whsec_…`; during a
 * rotation's overlap either secret verifies) and its timestamp is within 5 minutes of now.
 * @param body the request's body exactly as received (bytes or text), not parsed and serialised again
 * @throws WebhookVerificationError when it is not signed by the secret, or not recent
 * @example
 * const event = verifyWebhook(rawBody, request.headers, process.env.ENRICH_WEBHOOK_SECRET!);
 * if (event.type === 'person.job_changed') console.log(event.data.person_id);
 */
export function verifyWebhook<
  Event = { id: string; type: string; timestamp: string; data: Record<string, unknown> },
>(body: string | Uint8Array, headers: HeaderBag, secret: string, now: Date = new Date()): Event {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const sent = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - sent) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('webhook-timestamp is not within 5 minutes of now');
  }
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const signed = signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',', 2);
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!signed) throw new WebhookVerificationError('no webhook-signature matches the secret');
  return JSON.parse(text) as Event;
}
