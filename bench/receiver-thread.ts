// Worker thread: the webhook row's receiver (bench/during.ts), at the lowest CPU priority. It stands in for a
// receiver on another machine: on this one it takes only what the server and the load leave, so that the
// lookups' rate while deliveries run measures what the deliveries cost the server, not the receiver's work.
// It answers 204 and notes, per event, when its first attempt arrived after the event's commit.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../src/priority.js';

/** From the thread: its port once listening, then the first attempts asked for, oldest first. */
export type FromReceiver = { port: number } | { attempts: FirstAttempt[] };
export interface FirstAttempt {
  receivedMs: number;
  lagMs: number;
}

const port = parentPort!;
/** firstAttempt.size, for the parent to read without a message (bench/during.ts settle()). */
const count = new Int32Array(workerData.count as SharedArrayBuffer);
lowerThisThread();
const firstAttempt = new Map<string, FirstAttempt>();
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const id = String(request.headers['webhook-id']);
    if (!firstAttempt.has(id)) {
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      firstAttempt.set(id, { receivedMs: Date.now(), lagMs: Date.now() - Date.parse(timestamp) });
      Atomics.store(count, 0, firstAttempt.size);
    }
    response.statusCode = 204;
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  port.postMessage({ port: (server.address() as AddressInfo).port } satisfies FromReceiver);
});
port.on('message', (message: 'take' | 'close') => {
  if (message === 'close') {
    server.close();
    server.closeAllConnections();
    port.close();
    return;
  }
  port.postMessage({ attempts: [...firstAttempt.values()] } satisfies FromReceiver);
  firstAttempt.clear();
  Atomics.store(count, 0, 0);
});
