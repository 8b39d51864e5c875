// Runs the real `enrich` binary (bin/enrich.js over dist/, built by `npm test`) in a child process.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ENRICH = fileURLToPath(new URL('../../bin/enrich.js', import.meta.url));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `enrich ...args` with a clean environment (no DATABASE_URL), returning its output and exit code. */
export function enrich(args: string[], env: Record<string, string> = {}): Run {
  const { DATABASE_URL: _u, DATABASE_READ_URL: _r, ENRICH_DB: _d, ...rest } = process.env;
  const result = spawnSync(process.execPath, [ENRICH, ...args], {
    encoding: 'utf8',
    env: { ...rest, ...env },
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
