// A private, throwaway PostgreSQL server (initdb + pg_ctl in a temp dir, on a free port) that tests may stop.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The newest installed server binaries, or PG_BIN when set. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql; set PG_BIN');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

export interface PgInstance {
  /** Connection string for the `postgres` database as user `postgres` (trust authentication). */
  url: string;
  /** Shuts the server down: `fast` disconnects clients cleanly, `immediate` is as abrupt as a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server if running and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * Starts a server of its own. PostgreSQL refuses to run as root, so under root the directory is given to
 * the `postgres` user and every command runs as that user through runuser.
 */
export async function startPgInstance(): Promise<PgInstance> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'enrich-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = await Promise.all(['-u', '-g'].map((flag) => run('id', [flag, 'postgres'])));
    const [uid, gid] = ids.map(({ stdout }) => Number(stdout.trim()));
    chownSync(dir, uid!, gid!);
  }
  const pgRun = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);

  const port = await freePort();
  await pgRun('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const instance: PgInstance = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await pgRun('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions, '-w', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pgRun('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await instance.stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await instance.start();
  } catch (err) {
    await instance.destroy();
    throw err;
  }
  return instance;
}
