// Standard Webhooks 1.0 signing: `whsec_` secrets, and the `webhook-signature` header a receiver verifies.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: `whsec_` and the base64 of 24 random bytes. Shown to its owner once. */
export function newSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's decoded bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one delivery: one signature per secret that signs (two while a rotation overlaps). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
export function signingSecrets(
  endpoint: { secret: string; previous_secret: string | null; previous_expires_at: string | null },
  now: Date,
): string[] {
  const { secret, previous_secret: previous, previous_expires_at: expires } = endpoint;
  return previous !== null && expires !== null && Date.parse(expires) > now.getTime()
    ? [secret, previous]
    : [secret];
}
