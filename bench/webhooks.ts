// npm run bench:webhooks: how fast the dispatcher delivers one refresh's job changes to a healthy receiver.
// Appends EVENTS job changes (default 10,000) to a change log, as one refresh commits them, with one endpoint
// for them on the store; a receiver on this machine answers 204. Prints the events delivered per second, the
// p99 from an event's commit to its first attempt (contract: ≥ 1,000/s, p99 ≤ 2 s), and the CPU time this
// process spent an event (dispatcher and receiver: on a shared machine, steadier than the rate). The log is
// held in memory until the change log is a role of the Store; the deliveries, claims and attempts are the
// store's.
// Usage: npm run bench:webhooks -- [EVENTS] [postgres://… (a scratch database: its webhook tables are emptied)]
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventId } from '../src/changes/render.js';
import { openStore } from '../src/store/open.js';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { createEndpoint } from '../src/webhooks/endpoints.js';
import { webhookPoster } from '../src/webhooks/post.js';
import { jobChange, MemoryChanges } from '../test/helpers/memory-changes.js';
import { p99 } from './stats.js';

const [eventsArg = '10000', databaseUrl] = process.argv.slice(2);
if (!/^[1-9]\d*$/.test(eventsArg) || (databaseUrl !== undefined && !databaseUrl.startsWith('postgres'))) {
  process.stderr.write('usage: npm run bench:webhooks -- [EVENTS] [postgres://…]\n');
  process.exit(2);
}
const total = Number(eventsArg);

const committedAt = new Map<string, number>();
const firstAttemptMs: number[] = [];
let delivered = 0;
let allDelivered: () => void;
const done = new Promise<void>((resolve) => {
  allDelivered = resolve;
});
const receiver = createServer((request, response) => {
  const id = String(request.headers['webhook-id']);
  const committed = committedAt.get(id);
  if (committed !== undefined) {
    firstAttemptMs.push(performance.now() - committed);
    committedAt.delete(id);
  }
  request.resume();
  request.on('end', () => {
    response.writeHead(204).end();
    if (++delivered === total) allDelivered();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const { port } = receiver.address() as AddressInfo;

const dir = mkdtempSync(path.join(tmpdir(), 'enrich-webhooks-bench-'));
const store = await openStore({ dbPath: path.join(dir, 'enrich.db'), databaseUrl });
if (databaseUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client(databaseUrl);
  await client.connect();
  await client.query(
    'TRUNCATE webhook_endpoints, webhook_deliveries; UPDATE webhook_dispatch SET cursor = 0',
  );
  await client.end();
}
await createEndpoint(
  store,
  { allowPrivate: true },
  'key_bench',
  { url: `http://127.0.0.1:${port}/hook`, types: ['person.job_changed'] },
  0,
);
// The change log of one refresh, in memory: every event committed at once.
const log = new MemoryChanges();
const dispatcher = new WebhookDispatcher({
  store,
  changes: log,
  watchlists: store,
  poster: webhookPoster({ allowPrivate: true }),
  schedule: [5],
});
dispatcher.start();

const started = performance.now();
const cpuBefore = process.cpuUsage();
for (let n = 1; n <= total; n++) committedAt.set(eventId(n), started);
log.append(Array.from({ length: total }, (_, i) => jobChange(i + 1)));
await done;
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / total;
const p99Ms = p99(firstAttemptMs);
process.stdout.write(
  `${databaseUrl ? 'postgres' : 'sqlite'}: ${total} events delivered in ${seconds.toFixed(2)} s: ` +
    `${Math.round(total / seconds)} events/s; commit to first attempt p99 ${(p99Ms / 1000).toFixed(2)} s; ` +
    `CPU ${cpuMsPerEvent.toFixed(3)} ms an event\n`,
);
await dispatcher.close();
await store.close();
receiver.close();
rmSync(dir, { recursive: true, force: true });
