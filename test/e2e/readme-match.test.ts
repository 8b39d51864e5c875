// The README's `enrich match` and `enrich lookup` examples print what the README shows, against the store `npm start` fills.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../cluster/serve.js';
import { enrich } from '../helpers/cli.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The fenced blocks of a README section (`enrich match`'s by default), in order, unindented. */
function sectionBlocks(heading = '### Matching a list: `enrich match`'): string[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(heading);
  const end = text.slice(start + 1).search(/\n##+ /);
  const section = text.slice(start, end < 0 ? undefined : start + 1 + end);
  return [...section.matchAll(/^( *)```\w*\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body!
      .split('\n')
      .map((line) => line.slice(indent!.length))
      .join('\n'),
  );
}

/** A summary line with its timing, which no two runs share, left out. */
const untimed = (text: string) => text.replace(/ in [\d.]+ s \([\d,]+ rows\/s\)/g, ' in … s (… rows/s)');

describe('the README’s enrich match examples, against npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-readme-match-'));
  const db = join(dir, 'enrich.db');
  const blocks = sectionBlocks();

  beforeAll(async () => {
    const server = await serve(['--demo', '--workers', '1', '--db', db]);
    await server.stop();
  }, 120_000);

  it('matches the CSV list as printed', () => {
    const [script, stderr, csv] = blocks as [string, string, string];
    const list = /cat > leads\.csv <<'EOF'\n([\s\S]*?\n)EOF\n/.exec(script)![1]!;
    writeFileSync(join(dir, 'leads.csv'), list);
    const command = /^npx enrich (match .*) > leads-enriched\.csv$/m.exec(script)![1]!.split(' ');
    const run = enrich([...command.map((arg) => (arg === 'leads.csv' ? join(dir, arg) : arg)), '--db', db]);
    expect(run.status).toBe(0);
    expect(untimed(run.stderr)).toBe(untimed(stderr));
    expect(run.stdout).toBe(csv);
  });

  it('looks one person up as printed', () => {
    const [script, output] = sectionBlocks('### Looking one record up: `enrich lookup`') as [string, string];
    const args = /^npx enrich (lookup .*)$/m.exec(script)![1]!.split(' ');
    const run = enrich([...args, '--db', db]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(output);
  });

  it('matches the NDJSON list from stdin as printed', () => {
    const [script, output] = blocks.slice(3) as [string, string];
    const [, lines, args] = /^printf '(.*)' \| npx enrich (match .*)$/m.exec(script)!;
    const run = enrich([...args!.split(' '), '--db', db], {}, lines!.replaceAll('\\n', '\n'));
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(output);
  });
});
