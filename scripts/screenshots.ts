// npm run screenshots: each page of the console at 1280 and 375 px wide, as docs/console/<page>-<width>.png,
// over the demo data set with a little traffic (needs the console built: npm run build, and Chromium).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { issueKey } from '../src/auth/keys.js';
import { prepareDemo } from '../src/demo.js';
import { README_PERSON } from '../src/demo-records.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { launchChromium } from '../test/helpers/chromium.js';

const PAGES = ['overview', 'keys', 'usage', 'audit', 'suppressions', 'lists', 'lookup', 'changes'];
const WIDTHS = [1280, 375];
const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'enrich-screenshots-'));
const dbPath = join(dir, 'enrich.db');
const store = openSqliteStore(dbPath);
await prepareDemo(store, dbPath, (line) => console.log(line));
const { token } = await issueKey(store, {
  name: 'operator',
  scopes: ['admin', 'people:read', 'company:read', 'changes:read', 'changes:write'],
});
const app = await buildApp({ store });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const email = (README_PERSON as { emails?: { work?: Array<{ value: string }> } }).emails?.work?.[0]?.value;
for (const query of [`work_email=${email}`, 'work_email=nobody@example.com', 'id=fp000000000001']) {
  await fetch(`${url}/people?${query}`, { headers: { authorization: `Bearer ${token}` } });
}

const browser = await launchChromium();
try {
  mkdirSync(OUT, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${url}/console/`, { waitUntil: 'networkidle' });
  await page.getByLabel('API key').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('nav a[data-page="overview"]').waitFor();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const name of PAGES) {
      await page.goto(`${url}/console/#/${name}`);
      await page.reload({ waitUntil: 'networkidle' });
      await page.locator('main h1').waitFor();
      await page.screenshot({ path: join(OUT, `${name}-${width}.png`), fullPage: true });
      console.log(`wrote docs/console/${name}-${width}.png`);
    }
  }
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
