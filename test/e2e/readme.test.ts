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

/** A shell line's words: '…' and "…" quoted as a shell quotes them, $'…' with its \n and \\ escapes. */
function words(line: string): string[] {
  const found: string[] = [];
  for (const [, ansi, single, double, bare] of line.matchAll(
    /\$'((?:[^'\\]|\\.)*)'|'([^']*)'|"([^"]*)"|(\S+)/g,
  )) {
    if (ansi !== undefined) found.push(ansi.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));
    else found.push(single ?? double ?? bare!);
  }
  return found;
}

/** A curl line's method, headers, body and URL: `curl [-N] [-X METHOD] -H "Name: value"… [-d|--data-binary BODY] URL`. */
function parseCurl(line: string): {
  method: string;
  headers: Record<string, string>;
  body?: string;
  url: string;
} {
  const [, ...args] = words(line);
  const request: { method: string; headers: Record<string, string>; body?: string; url: string } = {
    method: 'GET',
    headers: {},
    url: '',
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-H') {
      const header = args[++i]!;
      const colon = header.indexOf(':');
      request.headers[header.slice(0, colon).toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === '-X') request.method = args[++i]!;
    else if (arg === '-d' || arg === '--data-binary') {
      request.body = args[++i]!;
      if (request.method === 'GET') request.method = 'POST';
    } else if (arg === '-N') continue;
    else if (arg.startsWith('-')) throw new Error(`the README test does not know curl's ${arg}`);
    else request.url = arg;
  }
  return request;
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

  it('includes a match by name and company, by GET and by POST', () => {
    expect(examples.some((line) => /name=.*company_domain=/.test(line))).toBe(true);
    expect(examples.some((line) => line.includes('"company_name"'))).toBe(true);
  });

  it('includes searches of both forms', () => {
    expect(examples.filter((line) => line.includes('/people/search')).length).toBeGreaterThanOrEqual(2);
    expect(examples.some((line) => line.includes('/v1/people/search'))).toBe(true);
  });

  it('includes a bulk lookup as JSON and as a stream', () => {
    expect(examples.filter((line) => line.includes('/bulk'))).toHaveLength(2);
  });

  it.each(examples)('answers %s', async (line) => {
    const { method, headers, body, url } = parseCurl(line.replaceAll('$KEY', token));
    const response = await fetch(url.replace(/^(http:\/\/)?localhost:8080/, server.url), {
      method,
      headers,
      body,
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    // A bulk's items were answered, not merely the request: every one of these examples finds records.
    if (url.includes('/bulk')) expect(text).toContain('"status":"matched"');
    // A match by name says how likely it is: 10 by domain, 8 by company name, as the README says.
    if (/name=|"last_name"/.test(line)) {
      const likelihood = response.headers.get('enrich-match-likelihood');
      expect(likelihood).toBe(line.includes('company_name') ? '8' : '10');
    }
    // A search finds someone in the demo set: its filters were picked to match demo records.
    if (url.includes('/search')) {
      const answer = JSON.parse(text) as unknown[] | { results: unknown[] };
      expect(Array.isArray(answer) ? answer : answer.results, text).not.toHaveLength(0);
    }
  });
});
