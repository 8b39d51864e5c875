// Test helpers: a local webhook receiver that records what it is sent, and a change log held in memory.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredEndpoint } from '../../src/store/webhooks.js';
import { newSecret } from '../../src/webhooks/sign.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on 127.0.0.1: `answer` says with which status to reply to each request (200 when it returns
 * nothing); null when it answers by itself, later.
 */
export async function startReceiver(
  answer: (received: Received, response: ServerResponse) => number | null | undefined = () => 200,
) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const one = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(one);
      const status = answer(one, response);
      if (status === null || response.writableEnded) return;
      response.statusCode = status ?? 200;
      response.end('thanks');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits until `done()` holds, checking every 20 ms, for at most `ms`. */
export async function until(done: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An endpoint of key_a for job changes at `url`, owed every event; `more` changes what it says. */
export const endpointAt = (url: string, more: Partial<StoredEndpoint> = {}): StoredEndpoint => ({
  id: `wh_${Math.random().toString(16).slice(2, 10)}`,
  key_id: 'key_a',
  url,
  types: ['person.job_changed'],
  watchlist: null,
  description: null,
  disabled: false,
  disabled_reason: null,
  created_at: new Date().toISOString(),
  secret: newSecret(),
  previous_secret: null,
  previous_expires_at: null,
  after_seq: 0,
  failing_since: null,
  ...more,
});
