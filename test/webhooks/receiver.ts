// Test helpers: a local webhook receiver that records what it is sent, and a change log held in memory.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChangeEventType, ClassifiedEvent, LoggedEvent } from '../../src/changes/events.js';
import type { ChangeBounds, ChangeStore } from '../../src/store/changes.js';
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

/** A change log in memory, as the changelog branch keeps one in the store. */
export class MemoryChangeLog implements ChangeStore {
  readonly events: LoggedEvent[] = [];
  private readonly listeners = new Set<() => void>();

  append(...events: ClassifiedEvent[]): LoggedEvent[] {
    const logged = events.map((event) => {
      const seq = (this.events.at(-1)?.seq ?? 0) + 1;
      const entry = { ...event, seq, at: new Date().toISOString() } as LoggedEvent;
      this.events.push(entry);
      return entry;
    });
    for (const listener of this.listeners) listener();
    return logged;
  }

  async readChanges(after: number, limit: number, types?: readonly ChangeEventType[]) {
    return this.events.filter((e) => e.seq > after && (!types || types.includes(e.type))).slice(0, limit);
  }

  async changeBounds(): Promise<ChangeBounds> {
    return { first: this.events[0]?.seq ?? 0, last: this.events.at(-1)?.seq ?? 0 };
  }

  watchChanges(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async pruneChanges(): Promise<number> {
    return 0;
  }
  changesAppended() {
    return new Map();
  }
}

/** A person's job change, as the classifier makes one. */
export const jobChange = (n: number): ClassifiedEvent => ({
  type: 'person.job_changed',
  data: {
    person_id: `fp${String(n).padStart(12, '0')}`,
    change: 'new_company',
    previous: {
      company_id: 'f000000000001',
      company_name: 'Old Co',
      position: 'Engineer',
      seniority: 'Other',
    },
    current: {
      company_id: 'f000000000002',
      company_name: 'New Co',
      position: 'Manager',
      seniority: 'Manager',
    },
  },
});

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
