// Issue 21's "done when", with real `enrich serve` processes and a real refresh: a watchlist's endpoint
// receives exactly the events evolve expects for what it watches (none of anyone else's), signed as
// Standard Webhooks verifies; a server killed with SIGKILL mid-delivery delivers the rest after a restart
// (SQLite); two servers on one PostgreSQL attempt each event once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_TYPES, type ClassifiedEvent } from '../../src/changes/events.js';
import { eventWatched } from '../../src/changes/watch.js';
import { type Server, serve } from '../cluster/serve.js';
import { enrich } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { type Received, startReceiver, until } from '../webhooks/receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-webhooks-live-'));
const start = join(dir, 'start');
const next = join(dir, 'next');
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  const generate = ['generate', '--companies', '80', '--people', '1200', '--seed', '21', '--out', start];
  expect(enrich(generate).status).toBe(0);
  expect(enrich(['evolve', '--in', start, '--out', next, '--seed', '21', '--months', '3']).status).toBe(0);
}, 120_000);

const expectedEvents = (): ClassifiedEvent[] =>
  readFileSync(join(next, 'expected-changes.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ClassifiedEvent);

/** What the watchlist will hold: some people who change job, one who does not, and one company with events. */
function chooseWatched(events: ClassifiedEvent[]) {
  const movers = events
    .filter((e) => e.type === 'person.job_changed' && e.data.change === 'new_company')
    .map((e) => (e.data as { person_id: string }).person_id);
  const company = events.find((e) => e.type === 'company.updated')?.data as { company_id: string };
  const changed = new Set(events.map((e) => (e.data as { person_id?: string }).person_id));
  const idle = readFileSync(join(start, 'people.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: string }).id)
    .find((id) => !changed.has(id))!;
  return { persons: [...new Set(movers)].slice(0, 6).concat(idle), company: company.company_id };
}

/** Every process of a server (a cluster's primary and its workers), killed at once. */
function killTree(server: Server) {
  let children = '';
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' });
  } catch {
    // none: ps exits 1
  }
  for (const pid of [
    server.child.pid!,
    ...children
      .split('\n')
      .map(Number)
      .filter((p) => p > 0),
  ]) {
    process.kill(pid, 'SIGKILL');
  }
}

/** The nice value of each thread of a process, its main thread first. */
const threadNices = (pid: number) =>
  readdirSync(`/proc/${pid}/task`)
    .sort((a, b) => Number(a) - Number(b))
    .map((tid) =>
      Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
    );

interface Target {
  args: string[];
  env: Record<string, string>;
}

/** Sets up the store, a key, its watchlist and a webhook for every event type through the first server. */
async function subscribe(server: Server, token: string, receiverUrl: string) {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, path).toBeLessThan(300);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const watched = chooseWatched(expectedEvents());
  const list = await call('POST', '/v1/watchlists', { name: 'live' });
  const added = await call('POST', `/v1/watchlists/${list.id}/entries`, {
    entries: [
      ...watched.persons.map((id, n) => ({ person: { id }, ref: `p${n}` })),
      { company: { id: watched.company }, ref: 'account' },
    ],
  });
  expect((added.results as { status: string }[]).every((r) => r.status === 'watching')).toBe(true);
  const hook = await call('POST', '/v1/webhooks', {
    url: receiverUrl,
    types: CHANGE_EVENT_TYPES,
    watchlist: list.id,
  });
  return { secret: hook.secret as string, watched };
}

/** The expected events for the watchlist, as {type, data}, in commit order. */
function expectedFor(watched: { persons: string[]; company: string }) {
  const lookup = { persons: new Set(watched.persons), companies: new Set([watched.company]) };
  return expectedEvents().filter((e) => eventWatched({ ...e, seq: 0, at: '' } as never, lookup));
}

/** Each received event once (a retry repeats a webhook-id), verified, in id (commit) order. */
function deliveredEvents(received: Received[], secret: string) {
  const byId = new Map<string, { type: string; data: unknown }>();
  const verifier = new Webhook(secret);
  for (const one of received) {
    const event = verifier.verify(one.body, one.headers as Record<string, string>) as {
      id: string;
      type: string;
      data: unknown;
    };
    expect(event.id).toBe(one.headers['webhook-id']);
    byId.set(event.id, { type: event.type, data: event.data });
  }
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, event]) => event);
}

const refresh = (target: Target) => {
  for (const entity of ['companies', 'people']) {
    const run = enrich(
      ['import', entity, join(next, `${entity}.ndjson`), '--snapshot', '--force', ...target.args],
      target.env,
    );
    expect(run.status, run.stderr).toBe(0);
  }
};

async function prepare(target: Target) {
  for (const entity of ['companies', 'people']) {
    expect(
      enrich(['import', entity, join(start, `${entity}.ndjson`), ...target.args], target.env).status,
    ).toBe(0);
  }
  const key = enrich(
    ['keys', 'create', '--name', 'watcher', '--scopes', 'changes:read,changes:write', ...target.args],
    target.env,
  );
  expect(key.status, key.stderr).toBe(0);
  return key.stdout.trim().split('\n').at(-1)!;
}

const SERVE_ENV = { ENRICH_WEBHOOK_ALLOW_PRIVATE: 'true', ENRICH_WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5,0.5' };

describe('webhooks from a refresh, to a receiver on this machine', () => {
  it('on SQLite: exactly the watched events, and all of them after a SIGKILL mid-delivery and a restart', async () => {
    const db = join(dir, 'live.db');
    const target = { args: ['--db', db], env: {} };
    const token = await prepare(target);
    // A slow receiver: the server is killed while deliveries are under way.
    const receiver = await startReceiver((_received, response) => {
      setTimeout(() => {
        response.statusCode = 204;
        response.end();
      }, 40);
      return null;
    });
    let server = await serve(['--db', db, '--workers', '1'], SERVE_ENV);
    try {
      const { secret, watched } = await subscribe(server, token, receiver.url);
      const expected = expectedFor(watched);
      expect(expected.length).toBeGreaterThanOrEqual(8);
      refresh(target);
      await until(() => receiver.received.length >= 2, 20_000);
      killTree(server);
      const beforeKill = deliveredEvents(receiver.received, secret).length;
      expect(beforeKill).toBeLessThan(expected.length);
      server = await serve(['--db', db, '--workers', '1'], SERVE_ENV);
      // What the killed server had claimed is attempted again once its claim's lease (30 s) runs out.
      await until(() => deliveredEvents(receiver.received, secret).length >= expected.length, 75_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(deliveredEvents(receiver.received, secret)).toEqual(expected);
      // Delivered from a thread of the server's own, below the lookups' priority, counted in its metrics.
      expect(threadNices(server.child.pid!).filter((nice) => nice === 19).length).toBeGreaterThan(0);
      expect(threadNices(server.child.pid!)[0]).toBe(0);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/enrich_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    } finally {
      await server.stop();
      await receiver.close();
    }
  }, 180_000);

  it('on PostgreSQL with two servers: exactly the watched events, each attempted once', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const target = { args: [], env: { DATABASE_URL: database.url } };
    const token = await prepare(target);
    const receiver = await startReceiver(() => 200);
    const env = { ...SERVE_ENV, DATABASE_URL: database.url };
    const servers = [await serve(['--workers', '1'], env), await serve(['--workers', '1'], env)];
    try {
      const { secret, watched } = await subscribe(servers[0]!, token, receiver.url);
      const expected = expectedFor(watched);
      refresh(target);
      await until(() => receiver.received.length >= expected.length, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(deliveredEvents(receiver.received, secret)).toEqual(expected);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      for (const server of servers) await server.stop();
      await receiver.close();
    }
  }, 120_000);
});
