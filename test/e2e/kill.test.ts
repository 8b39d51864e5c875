// A server killed with SIGKILL in the middle of a load loses no record of what it answered: after a
// restart, every 200 a client received is in the audit log, and usage and quota count at least as many.
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { serve } from '../cluster/serve.js';
import { PEOPLE } from '../helpers/app.js';
import { enrich } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

const IDS = PEOPLE.map((p) => p.id);

/** Lookups from `connections` keep-alive loops until the server goes; the 200s received, by record id. */
async function loadUntilGone(url: string, token: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const received = new Map<string, number>();
  let sent = 0;
  let gone = false;
  const one = (id: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${url}/people?id=${id}`, { agent, headers: { authorization: `Bearer ${token}` } });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const loop = async (n: number) => {
    for (let i = n; !gone; i++) {
      const id = IDS[i % IDS.length]!;
      sent++;
      try {
        if ((await one(id)) === 200) received.set(id, (received.get(id) ?? 0) + 1);
      } catch {
        gone = true; // the connection died with the server: that lookup's answer never arrived
      }
    }
  };
  const loops = Array.from({ length: connections }, (_, n) => loop(n));
  return {
    stop: async () => {
      await Promise.all(loops);
      agent.destroy();
      return { received, sent };
    },
  };
}

/** Every process of a server: a cluster's primary and its workers. */
function processTree(child: ChildProcess): number[] {
  let children = '';
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' });
  } catch {
    // none: ps exits 1
  }
  const workers = children
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return [child.pid!, ...workers];
}

const CASES = [
  { backend: 'sqlite', workers: 1 },
  { backend: 'sqlite', workers: 2 },
  { backend: 'postgres', workers: 1 },
] as const;

describe.each(CASES)(
  'a server on $backend with $workers worker(s) killed mid-load',
  ({ backend, workers }) => {
    const databases: TestDatabase[] = [];
    afterAll(async () => {
      for (const database of databases) await database.drop();
    });

    it('has every 200 a client received in its audit log, usage and quota after a restart', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'enrich-kill-'));
      const db = join(dir, 'enrich.db');
      let env: Record<string, string> = { ENRICH_JOURNAL_DIR: join(dir, 'journal') };
      if (backend === 'postgres') {
        const database = await createTestDatabase();
        databases.push(database);
        env = { ...env, DATABASE_URL: database.url };
      }
      const cli = (args: string[]) => enrich([...args, '--db', db], env);
      const people = join(dir, 'people.ndjson');
      writeFileSync(people, `${PEOPLE.map((p) => JSON.stringify(p)).join('\n')}\n`);
      expect(cli(['import', 'people', people]).status).toBe(0);
      const created = cli([
        'keys',
        'create',
        '--name',
        'killed',
        '--rate',
        '1000000',
        '--quota',
        '100000000',
      ]);
      const token = created.stdout.trim().split('\n').at(-1)!;
      const keyId = JSON.parse(cli(['keys', 'list', '--json']).stdout)[0].id as string;

      const server = await serve(['--db', db, '--workers', String(workers)], env);
      const load = await loadUntilGone(server.url, token, 16);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const pid of processTree(server.child)) process.kill(pid, 'SIGKILL');
      const { received, sent } = await load.stop();
      const answered = [...received.values()].reduce((a, b) => a + b, 0);
      expect(answered).toBeGreaterThan(100);

      // A report run before anything restarts folds in what the killed server journalled.
      const usage = JSON.parse(cli(['usage', '--key', keyId, '--json']).stdout);
      expect(usage.totals.matched).toBeGreaterThanOrEqual(answered);

      // The next server folds in whatever is left before it serves; a graceful stop folds the rest.
      const restarted = await serve(['--db', db, '--workers', '1'], env);
      expect(await restarted.stop()).toBe(0);

      const store: Store =
        backend === 'postgres' ? await openPostgresStore({ url: env.DATABASE_URL! }) : openSqliteStore(db);
      try {
        const audited = await store.audit({ keyId });
        for (const [id, count] of received) {
          const disclosures = audited.filter((e) => e.status === 200 && e.matched.includes(id)).length;
          expect(disclosures, `audit entries for ${id}`).toBeGreaterThanOrEqual(count);
        }
        expect(audited.length).toBeLessThanOrEqual(sent);
        const period = new Date().toISOString().slice(0, 7);
        expect(await store.quotaUsed(keyId, period)).toBeGreaterThanOrEqual(answered);
        const matched = (await store.usage({ keyId })).reduce((sum, row) => sum + row.matched, 0);
        expect(matched).toBeGreaterThanOrEqual(answered);
      } finally {
        await store.close();
      }
    });
  },
);
