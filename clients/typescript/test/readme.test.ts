// The README's TypeScript client example runs as printed against `enrich serve --demo` (npm start), importing
// the built package (`npm test` builds it first) as a user would.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Server, serve } from '../../../test/cluster/serve.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The first ```ts block after the `## TypeScript client` heading. */
function example(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## TypeScript client'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no TypeScript example under "## TypeScript client" in README.md');
  return match[1]!;
}

/** The outputs the example's comments promise: what follows `// ` on each console.log line. */
const promised = (code: string) =>
  code
    .split('\n')
    .filter((line) => line.trim().startsWith('console.log('))
    .map((line) => line.slice(line.lastIndexOf('// ') + 3).trim());

describe('the README TypeScript client example', () => {
  let server: Server;
  let token: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-client-readme-'));
    server = await serve(['--demo', '--workers', '1', '--db', join(dir, 'enrich.db')]);
    token = readFileSync(join(dir, 'demo-token'), 'utf8').trim();
  }, 120_000);
  afterAll(() => server?.stop());

  it('prints what its comments say, against npm start', () => {
    const code = example();
    // Under node_modules, so that `@enrich/client` resolves to this checkout's package.
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'enrich-readme-'));
    try {
      const file = join(dir, 'example.mts'); // .mts: ESM, with top-level await, as in a user's project
      writeFileSync(file, code.replace('http://127.0.0.1:8080', server.url));
      const run = spawnSync(process.execPath, ['--import', 'tsx', file], {
        encoding: 'utf8',
        env: { ...process.env, ENRICH_TOKEN: token },
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual(promised(code));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
