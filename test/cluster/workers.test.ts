import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';
import { bucketAllows, dataSet, hammer, lookupStatus, PERSON_ID, type Server, serve } from './serve.js';

/** The process ids of a process's children: a cluster primary's workers. */
const childrenOf = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);

describe('enrich serve --workers', () => {
  it('refuses a number of workers below one, naming the setting', () => {
    const refused = enrich(['serve', '--workers', '0', '--db', ':memory:']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/workers/);
  });

  it('stops with exit code 1, saying why, when a worker cannot start', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    const { db } = dataSet(10);
    const failed = enrich(['serve', '--port', String(port), '--workers', '2', '--db', db]);
    taken.close();
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/EADDRINUSE/);
    expect(failed.stderr).toMatch(/a worker exited while starting/);
  });
});

describe('enrich serve --workers 2 without Redis', () => {
  const { db, token } = dataSet(10);
  let server: Server;

  beforeAll(async () => {
    server = await serve(['--db', db, '--workers', '2']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('runs two workers on one port', () => {
    expect(childrenOf(server.child.pid!)).toHaveLength(2);
  });

  it('admits no more than the key bucket across workers, hammered', async () => {
    const load = await hammer([server.url], token, { seconds: 3, concurrency: 16 });
    const admitted = load.statuses[200] ?? 0;
    expect(Object.keys(load.statuses).sort()).toEqual(['200', '429']);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(bucketAllows(10, load.seconds) + 1);
    expect(load.statuses[429]).toBeGreaterThan(admitted);
  });

  it('counts a monthly quota exactly across workers', async () => {
    const created = enrich([
      'keys',
      'create',
      '--name',
      'metered',
      '--rate',
      '1000',
      '--quota',
      '20',
      '--db',
      db,
    ]);
    const metered = created.stdout.trim().split('\n').at(-1)!;
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${server.url}/people?id=${PERSON_ID}`, {
          headers: { authorization: `Bearer ${metered}` },
        }).then((response) => response.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
  });

  it('answers every /metrics scrape with the sum over all workers, process metrics labelled per worker', async () => {
    const key = enrich(['keys', 'create', '--name', 'counted', '--rate', '1000', '--db', db]);
    const counted = key.stdout.trim().split('\n').at(-1)!;
    // Fresh connections, so that the lookups spread over both workers.
    const statuses = await Promise.all(Array.from({ length: 40 }, () => lookupStatus(server.url, counted)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const matched = (text: string) =>
      Number(/^enrich_lookups_total\{entity="people",outcome="matched"\} (\d+)$/m.exec(text)?.[1]);
    const scrapes = await Promise.all(
      Array.from({ length: 6 }, async () =>
        (await fetch(`${server.url}/metrics`, { headers: { connection: 'close' } })).text(),
      ),
    );
    const counts = scrapes.map(matched);
    // Every scrape sees the same total (earlier tests' lookups included), never one worker's share.
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBeGreaterThanOrEqual(40);
    const workers = [...scrapes[0]!.matchAll(/^enrich_process_resident_memory_bytes\{worker="([^"]+)"\}/gm)];
    expect(workers.map((m) => m[1]).sort()).toEqual(['1', '2', 'primary']);
  });

  it('reports in /v1/usage the lookups every worker answered, at once', async () => {
    const key = enrich(['keys', 'create', '--name', 'usage', '--rate', '1000', '--db', db]);
    const token = key.stdout.trim().split('\n').at(-1)!;
    const statuses = await Promise.all(Array.from({ length: 30 }, () => lookupStatus(server.url, token)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${server.url}/v1/usage`, {
        headers: { authorization: `Bearer ${token}`, connection: 'close' },
      });
      expect((await response.json()).totals).toMatchObject({ requests: 30, matched: 30 });
    }
  });

  it('replaces a worker that dies', async () => {
    const [victim] = childrenOf(server.child.pid!);
    process.kill(victim!, 'SIGKILL');
    let workers: number[] = [];
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      workers = childrenOf(server.child.pid!);
      if (workers.length === 2 && !workers.includes(victim!)) break;
    }
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(victim);
    expect([200, 429]).toContain(await lookupStatus(server.url, token));
  });

  it('stops every worker and exits 0 on SIGTERM', async () => {
    const workers = childrenOf(server.child.pid!);
    expect(await server.stop()).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('enrich serve shutdown', () => {
  interface LogLine {
    pid: number;
    msg: string;
    role?: string;
    lookupsFolded?: number;
  }
  /** The JSON lines a server logged from `from` (a length of its output) on. */
  const linesFrom = (server: Server, from: number): LogLine[] =>
    server
      .stdout()
      .slice(from)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LogLine);
  const exited = (server: Server) => once(server.child, 'exit').then(([code]) => code as number | null);
  /** Lookups by a new key, and the key's id, so that its audit entries can be counted afterwards. */
  const lookups = async (db: string, url: string, count: number) => {
    const created = enrich(['keys', 'create', '--name', 'shutdown', '--rate', '1000', '--db', db]);
    const keyId = /Created key (key_\w+)/.exec(created.stdout)![1]!;
    const token = created.stdout.trim().split('\n').at(-1)!;
    const statuses = await Promise.all(Array.from({ length: count }, () => lookupStatus(url, token)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    return keyId;
  };
  const audited = (db: string, keyId: string) =>
    JSON.parse(enrich(['audit', '--key', keyId, '--json', '--db', db]).stdout).length;

  it("logs one line per process and a last one saying what was flushed, on a terminal's Ctrl-C to a cluster", async () => {
    const { db } = dataSet(10);
    const server = await serve(['--db', db, '--workers', '2'], { LOG_LEVEL: 'info' });
    const keyId = await lookups(db, server.url, 12);
    const from = server.stdout().length;
    const primary = server.child.pid!;
    const workers = childrenOf(primary);
    const exit = exited(server);
    // As a terminal does: SIGINT to every process of the group; the primary then sends its workers SIGTERM.
    for (const pid of [...workers, primary]) process.kill(pid, 'SIGINT');
    expect(await exit).toBe(0);
    const lines = linesFrom(server, from);
    const starting = lines.slice(0, -1);
    expect(starting.map((l) => l.msg).sort()).toEqual([
      'shutting down: finishing in-flight requests',
      'shutting down: finishing in-flight requests',
      'shutting down: stopping 2 workers',
    ]);
    expect(starting.map((l) => l.pid).sort()).toEqual([...workers, primary].sort());
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ pid: primary, role: 'primary' });
    expect(last.msg).toBe(
      `stopped: ${last.lookupsFolded} lookup${last.lookupsFolded === 1 ? '' : 's'} folded from 2 workers' accounting journals into the store, store closed`,
    );
    expect(last.lookupsFolded).toBeLessThanOrEqual(12);
    expect(audited(db, keyId)).toBe(12);
  });

  it('logs one line and a last one saying what was flushed from a single process, however many signals', async () => {
    const { db } = dataSet(10);
    const server = await serve(['--db', db, '--workers', '1'], { LOG_LEVEL: 'info' });
    const keyId = await lookups(db, server.url, 5);
    const from = server.stdout().length;
    const exit = exited(server);
    server.child.kill('SIGTERM');
    server.child.kill('SIGINT');
    expect(await exit).toBe(0);
    const lines = linesFrom(server, from);
    expect(lines.map((l) => l.msg)).toEqual([
      'shutting down: finishing in-flight requests',
      expect.stringMatching(
        /^stopped: \d+ lookups? folded from the accounting journal into the store, store closed$/,
      ),
    ]);
    expect(lines.every((l) => l.pid === server.child.pid)).toBe(true);
    expect(audited(db, keyId)).toBe(5);
  });
});
