// Every example of the README and of the pages under docs/ runs as printed against the store `npm start`
// fills, and prints what its page shows. How examples run, and the comments marking them: docs/development.md
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Server, serve } from '../cluster/serve.js';
import { type Example, pageExamples } from '../helpers/doc-examples/markdown.js';
import { normalise, PortMap, promisedLines, requestedPorts } from '../helpers/doc-examples/outputs.js';
import { type Background, PageShell } from '../helpers/doc-examples/shell.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const EXAMPLE_MS = 120_000;
/** The port the pages print for `npm start`: the test's own server answers for it. */
const NPM_START_PORT = 8080;

const pages = PAGES.map((page) => ({ page, ...pageExamples(page, readFileSync(join(ROOT, page), 'utf8')) }));

/**
 * Under node_modules of this checkout: `npx enrich` finds this package's own bin there, as in a checkout,
 * and a TypeScript example's `@enrich/client` resolves to the workspace package.
 */
const scratch = join(ROOT, 'node_modules', '.cache');
mkdirSync(scratch, { recursive: true });
const root = mkdtempSync(join(scratch, 'doc-examples-'));
/** The directory `npm start` leaves: ./data/enrich.db with the demo set, and data/demo-token. */
const template = join(root, 'npm-start');

/** curl as the examples run it: an error status fails the example (exit 22), and no progress meter. */
const curlHome = join(root, 'curl');
mkdirSync(curlHome, { recursive: true });
writeFileSync(join(curlHome, '.curlrc'), '--fail-with-body\n--silent\n--show-error\n');

/** The environment of a reader's terminal in a checkout: no store named but ./data/enrich.db. */
function terminalEnv(key: string | undefined): NodeJS.ProcessEnv {
  const { DATABASE_URL, DATABASE_READ_URL, ENRICH_DB, REDIS_URL, ENRICH_URL, ENRICH_TOKEN, KEY, ...rest } =
    process.env;
  return {
    ...rest,
    CURL_HOME: curlHome,
    npm_config_yes: 'false', // npx runs this checkout's enrich, and never fetches a package of that name
    npm_config_update_notifier: 'false',
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    ...(key ? { KEY: key } : {}),
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Runs a TypeScript example with tsx, in the page's directory, with what its shell has exported. */
async function runTypeScript(shell: PageShell, code: string, n: number) {
  const file = join(shell.dir, `example-${n}.mts`); // .mts: ESM with top-level await, as in a user's project
  writeFileSync(file, code);
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: shell.cwd(),
    env: shell.exported(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const [status] = (await once(child, 'exit')) as [number | null];
  return { status, stdout, stderr };
}

/** Waits until a server an example started prints each line its page shows, or stops printing. */
async function awaitLines(job: Background, lines: string[], ports: PortMap): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = normalise(ports.toPrinted(job.output()));
    if (lines.every((line) => seen.includes(line)) || job.exited() || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How the test names an example: where it is, and its first line. */
const title = (e: Example) => `${e.page}:${e.line} ${e.code.split('\n')[0]!.slice(0, 100)}`;

beforeAll(async () => {
  const server = await serve(['--demo', '--workers', '1', '--db', join(template, 'data', 'enrich.db')]);
  await server.stop();
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('reads every block of every page', () => {
  expect(pages.flatMap(({ page, problems }) => problems.map((p) => `${page} ${p}`))).toEqual([]);
});

it('keeps an example of each main task', () => {
  const code = pages.flatMap((p) => p.examples.filter((e) => !e.notRun).map((e) => e.code)).join('\n');
  const tasks: Array<[string, RegExp]> = [
    [
      'a lookup by website, by ABN and by LinkedIn URL',
      /company\?website=[\s\S]*company\?abn=[\s\S]*ln_url=/,
    ],
    ['fields', /fields=/],
    ['a lookup by POST', /\/v1\/people\/lookup/],
    ['a lookup by a hashed address', /work_email_sha256=/],
    ['a match by name and company, by GET and by POST', /name=[^']*company_domain=[\s\S]*"company_name"/],
    ['both forms of search', /\/people\/search\?[\s\S]*\/v1\/people\/search/],
    ['a bulk lookup as JSON and as a stream', /\/v1\/people\/bulk[\s\S]*application\/x-ndjson/],
    ['enrich match of a CSV and of NDJSON', /enrich match people [\s\S]*enrich match companies -/],
    ['the typed client', /from '@enrich\/client'/],
  ];
  expect(tasks.filter(([, pattern]) => !pattern.test(code)).map(([task]) => task)).toEqual([]);
});

// A page with no example (a reference table, say) has nothing to run.
describe.each(pages.filter((p) => p.examples.length > 0))('$page', ({ page, examples }) => {
  let server: Server;
  let shell: PageShell;
  const ports = new PortMap();

  beforeAll(async () => {
    const dir = join(root, page.replaceAll('/', '-'));
    cpSync(template, dir, { recursive: true });
    server = await serve(['--workers', '1', '--db', join(dir, 'data', 'enrich.db')]);
    ports.set(NPM_START_PORT, Number(new URL(server.url).port));
    for (const port of requestedPorts(examples.map((e) => e.code).join('\n')))
      if (!ports.has(port)) ports.set(port, await freePort());
    // The README's reader sets KEY as it says; every other page starts where the README left its reader.
    const key = readFileSync(join(dir, 'data', 'demo-token'), 'utf8').trim();
    shell = new PageShell(dir, terminalEnv(page === 'README.md' ? undefined : key));
  }, 60_000);
  afterAll(async () => {
    await shell?.close();
    await server?.stop();
  });

  for (const [n, example] of examples.entries()) {
    if (example.notRun) {
      it.skip(`${title(example)} — not run: ${example.notRun}`, () => {});
      continue;
    }
    it(
      `runs ${title(example)}`,
      async () => {
        const code = ports.toActual(example.code);
        if (example.background) {
          const job = shell.start(code);
          const expected = example.expect.flatMap((e) => normalise(e.text).split('\n'));
          const seen = await awaitLines(job, expected, ports);
          for (const line of expected) expect(seen, 'what the server printed').toContain(line);
          return;
        }
        const ran =
          example.lang === 'ts' ? await runTypeScript(shell, code, n) : await shell.run(code, EXAMPLE_MS);
        expect(ran.status, `exit status; stderr:\n${ran.stderr}\nstdout:\n${ran.stdout}`).toBe(example.exits);
        const printed = (text: string) => normalise(ports.toPrinted(text));
        if (example.lang === 'ts' && example.expect.length === 0)
          expect(printed(ran.stdout).split('\n')).toEqual(promisedLines(example.code));
        for (const expected of example.expect) {
          const actual =
            expected.kind === 'file'
              ? readFileSync(join(shell.cwd(), expected.path), 'utf8')
              : ran[expected.kind];
          expect(printed(actual), `${expected.kind} shown at ${page}:${expected.line}`).toBe(
            normalise(expected.text),
          );
        }
      },
      EXAMPLE_MS + 10_000,
    );
  }
});
