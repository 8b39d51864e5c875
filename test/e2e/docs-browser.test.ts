// /docs in a real browser (Debian's Chromium, driven by playwright-core) against a real `enrich serve`:
// the operator's title, no request to any other host, no hosted-only action, and a curl line that works.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Server, serve } from '../cluster/serve.js';
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from '../helpers/chromium.js';

/**
 * A name the browser resolves to 127.0.0.1 by itself (no DNS). The renderer treats localhost as
 * special (no request proxy, developer tools shown), so the page is also checked under an ordinary name.
 */
const PUBLIC_NAME = 'enrich.internal';
if (!HAVE_CHROMIUM) {
  console.warn(`Skipping the /docs browser check: no ${CHROMIUM} (apt-get install -y chromium).`);
}

describe.skipIf(!HAVE_CHROMIUM)('the API reference in a browser', () => {
  let server: Server;
  let token: string;
  let browser: Browser;
  let page: Page;
  /** Every URL the page asked for, from the first load through a test request. */
  const requested: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    // The demo set, as `npm start` serves it: the page's example identifiers are records it holds.
    const db = join(mkdtempSync(join(tmpdir(), 'enrich-docs-')), 'enrich.db');
    server = await serve(['--workers', '1', '--db', db, '--demo']);
    for (let i = 0; i < 50 && !/Demo key/.test(server.stderr()); i++) await sleep(100);
    token = /Demo key[^:]*: (enr_\w+)/.exec(server.stderr())?.[1] ?? '';
    expect(token).not.toBe('');
    browser = await launchChromium([`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`]);
    page = await open(server.url);
  }, 120_000);
  /** A page of the reference at `base`, every request and problem of it recorded. */
  async function open(base: string): Promise<Page> {
    const opened = await browser.newPage();
    opened.on('request', (request) => requested.push(request.url()));
    opened.on('pageerror', (error) => problems.push(error.message));
    opened.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await opened.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    await opened.getByText('Client Libraries').first().waitFor();
    return opened;
  }

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows the service's name in the tab", async () => {
    expect(await page.title()).toBe('Enrich API reference');
  });

  it('renders the operations of the OpenAPI document', async () => {
    const text = await page.locator('body').innerText();
    for (const path of ['/people', '/company', '/v1/usage', '/healthz']) expect(text).toContain(path);
  });

  it('shows none of the hosted-only actions', async () => {
    for (const label of ['Ask AI', 'Generate MCP', 'Deploy', 'Share', 'Developer Tools']) {
      const controls = page.getByText(new RegExp(`^\\s*${label}\\s*$`));
      expect(await controls.filter({ visible: true }).count(), label).toBe(0);
    }
  });

  it('shows a curl line that names this server and works as pasted', async () => {
    // Operations render as they scroll into view: go to the person lookup, as a reader would.
    await page.getByText('/people', { exact: true }).first().click();
    const snippet = page
      .locator('pre, code')
      .filter({ hasText: /^curl .*\/people/ })
      .first();
    await snippet.waitFor();
    const curl = await snippet.innerText();
    expect(curl).toContain(`${server.url}/people`);
    // As a reader would paste it, with their own token instead of the placeholder.
    const pasted = `${curl!.replace('YOUR_SECRET_TOKEN', token).trim()} --silent --include`;
    const run = spawnSync('bash', ['-c', pasted], { encoding: 'utf8', timeout: 10_000 });
    expect(run.status, run.stderr).toBe(0);
    const [statusLine = '', ...lines] = run.stdout.split('\r\n');
    // The example's identifier is a demo record's: the lookup finds it.
    expect(statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(lines.some((line) => /^x-request-id: /i.test(line))).toBe(true);
  });

  it('sends a test request straight to this server, under an ordinary host name too', async () => {
    const base = server.url.replace('127.0.0.1', PUBLIC_NAME);
    const named = await open(base);
    expect(await named.locator('body').innerText()).not.toMatch(/\bAsk AI\b|Developer Tools/);
    await named.getByText('/people', { exact: true }).first().click();
    await named
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const sent = named.waitForRequest((request) => request.url().includes('/people'));
    await named.getByRole('button', { name: /Send/ }).first().click();
    expect((await sent).url()).toMatch(new RegExp(`^${base}/people`));
  });

  it('asked no host but the server for anything, and broke no rule of its security policy', async () => {
    const own = [server.url, server.url.replace('127.0.0.1', PUBLIC_NAME)].map((url) => new URL(url).origin);
    const elsewhere = requested.filter(
      (url) => !/^(data|blob):/.test(url) && !own.includes(new URL(url).origin),
    );
    expect(requested.length).toBeGreaterThanOrEqual(3); // the page, the renderer, the document
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });
});
