// Runs the real `enrich` binary (bin/enrich.js over dist/, built by `npm test`) in a child process.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ENRICH = fileURLToPath(new URL('../../bin/enrich.js', import.meta.url));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without the store it names (DATABASE_URL, ENRICH_DB), plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _u, DATABASE_READ_URL: _r, ENRICH_DB: _d, ...rest } = process.env;
  return { ...rest, ...env };
}

/** Runs `enrich ...args` with a clean environment (no DATABASE_URL), returning its output and exit code. */
export function enrich(args: string[], env: Record<string, string> = {}, stdin?: string | Buffer): Run {
  const result = spawnSync(process.execPath, [ENRICH, ...args], {
    encoding: 'utf8',
    env: cleanEnv(env),
    timeout: 120_000,
    ...(stdin === undefined ? {} : { input: stdin }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `enrich ...args` as `enrich` does and returns its stdout; throws with its stderr when it fails. */
export function enrichOk(args: string[], env: Record<string, string> = {}): string {
  const run = enrich(args, env);
  if (run.status !== 0) throw new Error(`enrich ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Writes `records` as NDJSON to DIR/NAME; returns the file's path. */
export function writeNdjson(dir: string, name: string, records: object[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

/** Like `enrich`, without blocking this process: for runs that talk to a server the test itself serves. */
export function enrichAsync(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [ENRICH, ...args], { env: cleanEnv(env), timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface Running {
  child: ChildProcess;
  /** Resolves when it exits, with its output and exit code. */
  done: Promise<Run>;
}

/** Starts `enrich ...args` like `enrich`, without waiting: the test's own event loop keeps running. */
export function startEnrich(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [ENRICH, ...args], { env: cleanEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const done = new Promise<Run>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
  return { child, done };
}
