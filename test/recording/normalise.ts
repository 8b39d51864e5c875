// What of a response is recorded: headers that do not change from run to run, and a body with its
// request id (random unless the test gave one) named as such; a large body by its digest. Headers keep
// the order they were sent in (fetch sorts them).
import { createHash } from 'node:crypto';

/** Headers that differ on every run whatever the code: the clock, and the server's own timing. */
const VOLATILE = new Set(['date', 'x-request-id']);
/** Bodies larger than this are recorded by their digest. */
const LARGEST = 64 * 1024;

export function stableHeaders(headers: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (!VOLATILE.has(name)) kept[name] = String(headers[name]);
  }
  return kept;
}

export function digestLarge(body: Buffer, requestId: unknown): string {
  if (body.length > LARGEST) {
    return `sha256:${createHash('sha256').update(body).digest('hex')} (${body.length} bytes)`;
  }
  const text = body.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(body)) return `base64:${body.toString('base64')}`;
  return typeof requestId === 'string' && requestId !== ''
    ? text.replaceAll(requestId, '<request-id>')
    : text;
}
