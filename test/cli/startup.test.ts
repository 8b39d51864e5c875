// What `enrich` loads to start: a command on the embedded store never loads PostgreSQL's driver (see openStore).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enrich, writeNdjson } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A preload that writes, as the process exits, the packages it loaded through require (pg is CommonJS). */
const hook = join(dir, 'packages.cjs');
writeFileSync(
  hook,
  `process.on('exit', () => {
     const names = Object.keys(require.cache).map((f) => (f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/) ?? [])[1]);
     require('node:fs').writeFileSync(process.env.PACKAGES_OUT, JSON.stringify([...new Set(names.filter(Boolean))]));
   });`,
);

/** Runs `enrich ...args` with the preload; its exit code and the packages it loaded. */
function packagesOf(args: string[]): { status: number | null; stderr: string; packages: string[] } {
  const out = join(dir, `packages-${args[0]}.json`);
  const run = enrich(args, { NODE_OPTIONS: `--require ${hook}`, PACKAGES_OUT: out });
  return {
    status: run.status,
    stderr: run.stderr,
    packages: JSON.parse(readFileSync(out, 'utf8')) as string[],
  };
}

describe('enrich on the embedded store', () => {
  it('prints its version without loading pg', () => {
    const run = packagesOf(['--version']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.packages).toContain('commander');
    expect(run.packages).not.toContain('pg');
  });

  it('imports into a SQLite file without loading pg', () => {
    const file = writeNdjson(dir, 'people.ndjson', [{ id: 'fp1', name: 'Jane Citizen' }]);
    const run = packagesOf(['import', 'people', file, '--db', join(dir, 'store.db')]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.packages).toContain('better-sqlite3');
    expect(run.packages).not.toContain('pg');
  });
});
