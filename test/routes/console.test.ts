// /console: the page and its files served from this server under a policy of 'self' only, no inline script.
// Needs the console built (`npm run build`, as `npm test` does first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

describe('the console', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  it('redirects /console to /console/', async () => {
    const res = await t.app.inject('/console');
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('/console/');
  });

  it("serves the page under a policy of 'self' only, with no inline script or style", async () => {
    const res = await t.app.inject('/console/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.body).toMatch(/<script type="module" src="main.js"><\/script>/);
    expect(res.body).not.toMatch(/<script>|<style|style=/);
  });

  it('serves its scripts and style sheet, and 404 for anything else', async () => {
    for (const file of ['main.js', 'pages/keys.js', 'console.css']) {
      const res = await t.app.inject(`/console/${file}`);
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-security-policy']).toBeDefined();
    }
    expect((await t.app.inject('/console/nothing.js')).statusCode).toBe(404);
    expect((await t.app.inject('/console/../package.json')).statusCode).toBe(404);
  });

  it('names no other host in any file it serves', async () => {
    for (const file of ['', 'main.js', 'api.js', 'chart.js', 'pages/overview.js', 'console.css']) {
      const res = await t.app.inject(`/console/${file}`);
      expect(res.body, file).not.toMatch(
        /(?:https?:)?\/\/(?!www\.w3\.org\/2000\/svg)[a-z0-9.-]+\.[a-z]{2,}/i,
      );
    }
  });
});
