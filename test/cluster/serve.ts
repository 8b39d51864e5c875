// Real `enrich serve` processes for scale-out tests: a small SQLite data set, spawning, and a bounded load.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PEOPLE } from '../helpers/app.js';
import { ENRICH, enrich } from '../helpers/cli.js';

export const PERSON_ID = PEOPLE[0]!.id;

/** A SQLite file holding a few people and one key at `rate` per second. */
export function dataSet(rate: number): { db: string; token: string } {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-scale-'));
  const db = join(dir, 'enrich.db');
  const people = join(dir, 'people.ndjson');
  writeFileSync(people, `${PEOPLE.map((p) => JSON.stringify(p)).join('\n')}\n`);
  const imported = enrich(['import', 'people', people, '--db', db]);
  if (imported.status !== 0) throw new Error(imported.stderr);
  const key = enrich(['keys', 'create', '--name', 'hammered', '--rate', String(rate), '--db', db]);
  if (key.status !== 0) throw new Error(key.stderr);
  return { db, token: key.stdout.trim().split('\n').at(-1)! };
}

export interface Server {
  url: string;
  child: ChildProcess;
  /** Everything it has written to stdout (its log lines) so far. */
  stdout(): string;
  /** Everything it has written to stderr (where it listens, start-up warnings) so far. */
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `enrich serve --port 0 …args` and resolves once it prints where it listens. */
export async function serve(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const { DATABASE_URL: _u, DATABASE_READ_URL: _r, ENRICH_DB: _d, REDIS_URL: _x, ...rest } = process.env;
  const child = spawn(process.execPath, [ENRICH, 'serve', '--port', '0', ...args], {
    env: { ...rest, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    stdout += chunk;
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    return code as number | null;
  };
  return { url, child, stdout: () => stdout, stderr: () => stderr, stop };
}

/** One lookup on a fresh connection (none left over from a worker that has since died): its status. */
export async function lookupStatus(url: string, token: string): Promise<number> {
  const request = get(`${url}/people?id=${PERSON_ID}`, {
    agent: false,
    headers: { authorization: `Bearer ${token}` },
  });
  const [response] = (await once(request, 'response')) as [import('node:http').IncomingMessage];
  response.resume();
  return response.statusCode!;
}

export interface Load {
  /** Responses by status. */
  statuses: Record<number, number>;
  seconds: number;
}

/**
 * Sends lookups through every URL from `concurrency` loops each, for `seconds` or `max` requests,
 * whichever comes first; `seconds` in the result runs from the first request out to the last answer.
 */
export async function hammer(
  urls: string[],
  token: string,
  { seconds = 3, concurrency = 8, max = 3_000 } = {},
): Promise<Load> {
  const statuses: Record<number, number> = {};
  let sent = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (url: string) => {
    while (performance.now() < deadline && sent < max) {
      sent++;
      const response = await fetch(`${url}/people?id=${PERSON_ID}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  await Promise.all(urls.flatMap((url) => Array.from({ length: concurrency }, () => loop(url))));
  return { statuses, seconds: (performance.now() - started) / 1000 };
}

/** What a token bucket of `rate` per second, starting full, may admit in `seconds`. */
export const bucketAllows = (rate: number, seconds: number) => rate * seconds + rate;

/** Waits until the server's local index is in service (its lookups then read it), or throws. */
export async function localIndexServing(server: Server, withinMs = 30_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    if (/^enrich_local_index_serving 1$/m.test(text)) return;
    if (Date.now() - started > withinMs) throw new Error(`${server.url}: local index not in service`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
