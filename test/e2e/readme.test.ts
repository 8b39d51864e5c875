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

/**
 * A curl line's method, headers, body and URL: `curl [-X POST] -H "Name: value" [-d '{…}'] 'url'` (the URL
 * quoted or not).
 */
function parseCurl(line: string): {
  method: string;
  headers: Record<string, string>;
  body?: string;
  url: string;
} {
  const headers: Record<string, string> = {};
  for (const [, name, value] of line.matchAll(/-H "([^:]+): ([^"]*)"/g))
    headers[name!.toLowerCase()] = value!;
  const method = /-X (\w+)/.exec(line)?.[1] ?? 'GET';
  const body = /-d '([^']*)'/.exec(line)?.[1];
  const rest = line
    .replace(/-H "[^"]*"/g, '')
    .replace(/-X \w+/, '')
    .replace(/-d '[^']*'/, '')
    .replace(/^curl\s+/, '')
    .trim();
  return { method, headers, ...(body === undefined ? {} : { body }), url: rest.replace(/^'(.*)'$/, '$1') };
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

  it('includes lookups by website, ABN and LinkedIn URL', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it('includes searches of both forms', () => {
    expect(examples.filter((line) => line.includes('/people/search')).length).toBeGreaterThanOrEqual(2);
    expect(examples.some((line) => line.includes('/v1/people/search'))).toBe(true);
  });

  it.each(examples)('answers %s', async (line) => {
    const { url, ...request } = parseCurl(line.replaceAll('$KEY', token));
    const response = await fetch(url.replace(/^(http:\/\/)?localhost:8080/, server.url), request);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    // A search finds someone in the demo set: its filters were picked to match demo records.
    if (url.includes('/search')) {
      const answer = JSON.parse(text) as unknown[] | { results: unknown[] };
      expect(Array.isArray(answer) ? answer : answer.results, text).not.toHaveLength(0);
    }
  });
});
