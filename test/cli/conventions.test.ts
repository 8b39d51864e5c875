// The enrich command behaves as command-line tools do: --version, short usage errors, quiet when piped to head.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENRICH, enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-conventions-'));
const db = join(dir, 'enrich.db');

describe('the enrich command', () => {
  it('prints the package version with --version and -V', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const run = enrich([flag]);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  it.each([
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/, 'enrich'],
    ['an unknown option', ['keys', 'list', '--colour'], /unknown option '--colour'/, 'enrich keys list'],
    ['a missing argument', ['keys', 'show'], /missing required argument 'id'/, 'enrich keys show'],
    ['a missing option', ['keys', 'create'], /required option '--name <name>'/, 'enrich keys create'],
    [
      'an invalid option value',
      ['keys', 'create', '--name', 'x', '--rate', 'fast'],
      /'--rate <n>' argument 'fast' is invalid/,
      'enrich keys create',
    ],
    ['too many arguments', ['keys', 'show', 'a', 'b'], /too many arguments/, 'enrich keys show'],
    ['audit without --record or --key', ['audit'], /give --record ID, --key ID or both/, 'enrich audit'],
    ['suppress without an identifier', ['suppress', 'people'], /give an identifier: --id/, 'enrich suppress'],
    [
      'suppress by an identifier of the other entity',
      ['suppress', 'people', '--abn', '51824753556'],
      /--abn: abn does not identify people/,
      'enrich suppress',
    ],
    ['an invalid argument', ['delete', 'users', 'x'], /expected "people" or "companies"/, 'enrich delete'],
  ])('answers %s with the error and a one-line hint, not the whole help', (_what, args, error, path) => {
    const run = enrich([...args, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(error);
    expect(lines[1]).toBe(`Run "${path} --help" for usage.`);
  });

  it('still prints the whole help when asked for it', () => {
    const run = enrich(['keys', 'create', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Usage: enrich keys create \[options\]/);
    expect(run.stdout).toMatch(/--expires <date>/);
  });
});

describe('enrich export piped into a reader that stops early', () => {
  beforeAll(() => {
    const data = join(dir, 'data');
    expect(enrich(['generate', '--companies', '20', '--people', '1000', '--out', data]).status).toBe(0);
    expect(enrich(['import', 'people', join(data, 'people.ndjson'), '--db', db]).status).toBe(0);
  });

  it('exits 0 without a word on stderr when the pipe closes (enrich export people | head -1)', async () => {
    const child = spawn(process.execPath, [ENRICH, 'export', 'people', '--db', db], {
      env: { ...process.env, DATABASE_URL: '' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    expect(first.toString('utf8')).toMatch(/^\{"id":"fp/);
    child.stdout.destroy();
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

/** The commands the help of `path` lists under "Commands:", as full paths (`keys create`). */
function subcommands(path: string[]): string[][] {
  const help = enrich([...path, '--help']).stdout;
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map((match) => match[1]!)
    .filter((name) => name !== 'help')
    .map((name) => [...path, name]);
}

describe('options every command takes', () => {
  it('accepts --db before the command name as well as after it: both name the same store', () => {
    const store = join(dir, 'global.db');
    const created = enrich(['--db', store, 'keys', 'create', '--name', 'before the command']);
    expect(created.status).toBe(0);
    const after = enrich(['keys', 'list', '--json', '--db', store]);
    const before = enrich(['--db', store, 'keys', 'list', '--json']);
    expect(after.status).toBe(0);
    expect(before.stdout).toBe(after.stdout);
    expect(JSON.parse(after.stdout).map((k: { name: string }) => k.name)).toEqual(['before the command']);
    const usage = enrich(['--db', store, 'usage', '--json']);
    expect(usage.status).toBe(0);
    expect(JSON.parse(usage.stdout).rows).toEqual([]);
  });

  it('refuses --db for a command that opens no store, instead of ignoring it', () => {
    const run = enrich([
      '--db',
      join(dir, 'x.db'),
      'generate',
      '--companies',
      '1',
      '--people',
      '0',
      '--out',
      dir,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--db does not apply to enrich generate/);
  });

  it('says in the top-level help which options and variables every store command takes', () => {
    const help = enrich(['--help']).stdout;
    expect(help).toMatch(/--db <path>/);
    expect(help).toMatch(/enrich --db X usage/);
    for (const name of ['DATABASE_URL', 'ENRICH_DB', 'ENRICH_JOURNAL_DIR']) expect(help).toContain(name);
  });

  it('never states an option’s default twice in any command’s help', () => {
    const paths = subcommands([]).flatMap((path) => [path, ...subcommands(path)]);
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      const help = enrich([...path, '--help']).stdout;
      for (const line of help.split('\n'))
        expect(line, `enrich ${path.join(' ')}`).not.toMatch(/\(default[ :][^)]*\).*\(default[ :]/);
    }
  }, 120_000); // a process per command: slow on a loaded machine
});
