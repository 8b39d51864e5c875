// A redis-server of the test's own on a spare port, so that it can be killed and started again (never the
// machine's shared one). Its append-only file keeps what it held across a kill, as a restarted Redis would.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

async function sparePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export interface OwnRedis {
  url: string;
  /** Kills it at once (SIGKILL): clients see their connection drop. */
  kill(): Promise<void>;
  /** Starts it again on the same port, with what it held. */
  start(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await sparePort();
  const dir = mkdtempSync(join(tmpdir(), 'enrich-redis-'));
  let child: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir];
  const durable = ['--appendonly', 'yes', '--appendfsync', 'always'];
  const own: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', [...args, ...durable], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
        probe.on('error', () => {});
        const up = await probe.connect().then(
          () => probe.ping().then(() => true),
          () => false,
        );
        probe.disconnect();
        if (up) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('redis-server did not start');
    },
    async kill() {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
  await own.start();
  return own;
}
