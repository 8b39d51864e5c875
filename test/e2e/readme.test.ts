// Every curl example in the README answers as printed against `enrich serve --demo` (npm start).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Server, serve } from '../cluster/serve.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The README's curl lines against the local server, as a reader would paste them. */
const examples = readFileSync(README, 'utf8')
  .split('\n')
  .filter((line) => /^curl .*localhost:8080\//.test(line));

/** A curl line's headers, body and URL: `curl -H "Name: value" [-d 'body'] 'url'` (the URL quoted or not). */
function parseCurl(line: string): { headers: Record<string, string>; body?: string; url: string } {
  const headers: Record<string, string> = {};
  for (const [, name, value] of line.matchAll(/-H "([^:]+): ([^"]*)"/g))
    headers[name!.toLowerCase()] = value!;
  const body = /-d '([^']*)'/.exec(line)?.[1];
  const rest = line
    .replace(/-H "[^"]*"/g, '')
    .replace(/-d '[^']*'/, '')
    .replace(/^curl\s+/, '')
    .trim();
  return { headers, body, url: rest.replace(/^'(.*)'$/, '$1') };
}

describe('the README examples, against npm start', () => {
  let server: Server;
  let token: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-readme-'));
    server = await serve(['--demo', '--workers', '1', '--db', join(dir, 'enrich.db')]);
    token = readFileSync(join(dir, 'demo-token'), 'utf8').trim();
  }, 120_000);
  afterAll(() => server?.stop());

  it('includes lookups by website, ABN and LinkedIn URL, with fields, by POST and by hash', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const kind of [/fields=/, / -d '/, /email_sha256/])
      expect(examples.some((line) => kind.test(line))).toBe(true);
  });

  it.each(examples)('answers %s', async (line) => {
    const { headers, body, url } = parseCurl(line.replaceAll('$KEY', token));
    // curl -d sends a POST.
    const method = body === undefined ? 'GET' : 'POST';
    const response = await fetch(url.replace(/^(http:\/\/)?localhost:8080/, server.url), {
      method,
      headers,
      body,
    });
    expect(response.status, await response.text()).toBe(200);
  });
});
