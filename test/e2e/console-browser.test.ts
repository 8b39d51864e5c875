// /console in a real browser (Debian's Chromium, driven by playwright-core) against a listening app: signs in
// with a key and goes through every page doing what an operator does, checks each page with axe-core, at
// 1280 and 375 px wide, and that nothing is asked of any other host.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as engine from '../../src/ingest/match/index.js';
import type { Store } from '../../src/store/store.js';
import { listeningApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from '../helpers/chromium.js';

if (!HAVE_CHROMIUM) console.warn(`Skipping the console browser check: no ${CHROMIUM}.`);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PAGES = ['overview', 'keys', 'usage', 'audit', 'suppressions', 'lists', 'lookup', 'changes'];

const LIST_ROWS = [
  'Jane,jane.citizen@acme.com.au',
  'Shared,info@acme.com.au',
  'Nobody,nobody@example.com',
  'Sam,sam.lee@outlook.com',
];
/** A list of `rows` people, by name and e-mail. */
const peopleCsv = (rows: number) =>
  `Name,Email\n${Array.from({ length: rows }, (_, i) => LIST_ROWS[i % LIST_ROWS.length]).join('\n')}\n`;

/** What `enrich match` writes for the list in `input` over this store (its engine, as the command runs it). */
async function enrichMatch(store: Store, input: string, output: string): Promise<string> {
  const list = await engine.openList(input);
  const operation = engine.operationOf('people');
  const uses = engine.mapColumns(list.reader.columns, operation, []);
  const out = engine.listOutput(output);
  await engine.matchList({
    reader: list.reader,
    paramsOf: engine.paramsOfRows(list.shape, uses, operation, []),
    resolver: engine.localResolver(store, operation),
    writer: engine.listWriter(list.shape, list.reader.columns, undefined, { entity: 'people' }),
    out,
  });
  await out.close();
  return readFileSync(output, 'utf8');
}

describe.skipIf(!HAVE_CHROMIUM)('the console in a browser', () => {
  let t: TestApp & { url: string };
  let admin: { auth: string; id: string; token: string };
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];
  /** The key the Keys page makes, and its token as the page showed it. */
  let made: { id: string; token: string; curl: string };

  beforeAll(async () => {
    t = await listeningApp();
    admin = await t.newKey({
      name: 'operator',
      scopes: ['admin', 'people:read', 'company:read', 'changes:read', 'changes:write'],
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) {
        problems.push(message.text());
      }
    });
    page.on('dialog', (dialog) => void dialog.accept());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const api = (path: string, auth = admin.auth, init: RequestInit = {}) =>
    fetch(`${t.url}${path}`, { ...init, headers: { authorization: auth, ...init.headers } });
  const go = async (name: string) => {
    await page.click(`nav a[data-page="${name}"]`);
    await page.waitForFunction(
      (title) => document.title.startsWith(title),
      await page.locator(`nav a[data-page="${name}"]`).innerText(),
    );
    await page.waitForLoadState('networkidle');
  };
  /** axe-core's serious and critical violations on the page as it stands (run in the page, past its CSP). */
  const violations = async () => {
    await page.evaluate(AXE);
    const found = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
        }
      ).axe;
      return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    });
    return found.map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`);
  };

  it('serves the page under a policy of its own origin, and shows the sign-in form', async () => {
    const res = await page.goto(`${t.url}/console/`, { waitUntil: 'networkidle' });
    expect(res?.headers()['content-security-policy']).toMatch(/default-src 'self'.*script-src 'self';/);
    await page.getByLabel('API key').waitFor();
    expect(await violations()).toEqual([]);
  });

  it('signs in with a key, keeping no token where a script could read it', async () => {
    await page.getByLabel('API key').fill(admin.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('nav a[data-page="overview"]').waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'enrich_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(
      await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage)),
    ).not.toContain(admin.token);
  });

  it('shows every page of an admin key, each without a serious or critical accessibility violation', async () => {
    for (const name of PAGES) {
      await go(name);
      expect(await page.locator('main h1').innerText()).not.toBe('');
      expect(await violations(), name).toEqual([]);
    }
  });

  it('creates a key on the Keys page, its token shown once with a curl line that works as shown', async () => {
    await go('keys');
    await page.getByLabel('Name', { exact: true }).fill('made in the browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = await page.locator('#new-token').innerText();
    const curl = await page.locator('#curl-line').innerText();
    expect(token).toMatch(/^enr_/);
    expect(curl).toContain(token);
    const answer = JSON.parse(
      // Not execFileSync: the server answering it runs on this thread.
      (await promisify(execFile)('sh', ['-c', `${curl} --silent --fail --max-time 10`])).stdout,
    );
    made = { id: answer.key_id, token, curl };
    expect(made.id).toMatch(/^key_/);
    expect(await violations()).toEqual([]);
  });

  it("charts the new key's usage with the numbers GET /v1/admin/usage gives", async () => {
    const bearer = `Bearer ${made.token}`;
    for (const query of [
      'work_email=jane.citizen@acme.com.au',
      'id=fp000000000002',
      'work_email=nobody@acme.com.au',
    ]) {
      await api(`/people?${query}`, bearer);
    }
    await go('usage');
    await page.getByLabel('Key', { exact: true }).selectOption(made.id);
    await page.waitForFunction(
      (id) => document.querySelector('figcaption')?.textContent?.includes(id),
      made.id,
    );
    const shown = await page
      .locator('#usage-area > .table-wrap tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
    const series = await (await api(`/v1/admin/usage?key=${made.id}&granularity=day`)).json();
    const expected = series.series.flatMap(
      (s: { operation: string; points: Array<Record<string, number | string>> }) =>
        s.points.map((p) => [
          String(p.at).slice(0, 10),
          s.operation,
          ...['requests', 'matched', 'not_found', 'ambiguous', 'rejected'].map((c) => String(p[c])),
        ]),
    );
    expect(shown).toEqual(expected);
    expect(shown).toContainEqual([expect.any(String), 'people', '3', '2', '1', '0', '0']);
  });

  it('revokes the key, after which its token answers 401', async () => {
    await go('keys');
    await page.getByRole('button', { name: 'Revoke made in the browser' }).click();
    await page.locator('#status', { hasText: 'revoked' }).waitFor();
    expect((await api('/v1/usage', `Bearer ${made.token}`)).status).toBe(401);
  });

  it('finds a lookup just made on the Audit page', async () => {
    await go('audit');
    await page.getByLabel('Identifier').fill('jane.citizen@acme.com.au');
    await page.getByRole('button', { name: 'Find lookups' }).click();
    await page.locator('#audit-count').waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('fp000000000001');
    expect(text).toContain(made.id);
  });

  it('suppresses a person, showing what it deletes first, and lifts the suppression', async () => {
    await go('suppressions');
    await page.getByLabel('Identifier kind').selectOption('work_email');
    await page.getByLabel('Identifier', { exact: true }).fill('jose@acme.com.au');
    await page.getByRole('button', { name: 'Show what it deletes' }).click();
    await page.locator('#suppression-state', { hasText: 'not suppressed' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('fp000000000002');
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    await page.locator('#status', { hasText: 'Suppressed.' }).waitFor();
    expect((await api('/people?work_email=jose@acme.com.au')).status).toBe(404);
    await page.getByRole('button', { name: 'Show what it deletes' }).click();
    await page.locator('#suppression-state', { hasText: 'is suppressed' }).waitFor();
    await page.getByRole('button', { name: 'Remove suppression' }).click();
    await page.locator('#status', { hasText: 'Suppression removed.' }).waitFor();
    const status = await (
      await api('/v1/admin/suppressions?entity=people&work_email=jose@acme.com.au')
    ).json();
    expect(status.identifiers).toEqual([{ parameter: 'work_email', suppressed: false }]);
  });

  it('enriches a 10,000-row CSV on the Enrich a list page, its result the file enrich match writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-console-list-'));
    try {
      const input = join(dir, 'people.csv');
      writeFileSync(input, peopleCsv(10_000));
      await go('lists');
      await page.setInputFiles('#list-file', input);
      await page.getByRole('cell', { name: 'jane.citizen@acme.com.au' }).first().waitFor();
      await page.getByRole('button', { name: 'Start matching' }).click();
      const button = page.getByRole('button', { name: /^Download the result of/ }).first();
      await button.waitFor({ timeout: 60_000 });
      expect(await page.locator('#list-progress').innerText()).toMatch(/^done: 10,000 of 10,000 rows/);
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      const result = readFileSync((await download.path())!, 'utf8');
      expect(result).toBe(await enrichMatch(t.store, input, join(dir, 'matched.csv')));
      expect(await violations()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('looks a person up and searches people on the Look up page', async () => {
    await go('lookup');
    await page.getByLabel('Identifier').fill('jane.citizen@acme.com.au');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await page.locator('#lookup-answer h3', { hasText: 'Jane Citizen' }).waitFor();
    await page.getByLabel('Words').fill('Jane');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#search-total').waitFor();
    expect(await page.locator('#search-results').innerText()).toContain('Jane Citizen');
  });

  it('fits every page in 375 px without scrolling sideways', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const name of PAGES) {
      await go(name);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, name).toBeLessThanOrEqual(0);
      expect(await violations(), name).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('signs out, ending the session on the server', async () => {
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'enrich_session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    const after = await fetch(`${t.url}/console/session`, {
      headers: { cookie: `enrich_session=${cookie!.value}` },
    });
    expect(after.status).toBe(401);
  });

  it("lists only the pages a key's scopes open", async () => {
    const reader = await t.newKey({ name: 'sales', scopes: ['people:read'] });
    await page.getByLabel('API key').fill(reader.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('nav a[data-page="usage"]').waitFor();
    expect(await page.locator('nav a').allInnerTexts()).toEqual([
      'Usage',
      'Enrich a list',
      'Look up and search',
    ]);
    await go('usage');
    expect(await page.locator('figcaption').first().innerText()).toContain(reader.id);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
  });

  it('asked nothing of any other host, and no script or policy failed', () => {
    const origin = new URL(t.url).origin;
    expect(
      requested.filter(
        (url) => !url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:'),
      ),
    ).toEqual([]);
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
  });
});
