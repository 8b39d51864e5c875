// /metrics: open by default; behind a bearer token with ENRICH_METRICS_TOKEN; on an address of its own with
// ENRICH_METRICS_ADDRESS (and then not on the API's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsTokenCheck } from '../../src/auth/metrics-token.js';
import { loadConfig } from '../../src/config.js';
import { ProblemError } from '../../src/errors.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { type TestApp, testApp } from '../helpers/app.js';

const TOKEN = 'scrape-me-0123456789';

describe('the metrics token check', () => {
  const check = metricsTokenCheck(TOKEN);
  const refusal = (header: string | undefined) => {
    try {
      check(header);
    } catch (error) {
      if (error instanceof ProblemError) return error;
      throw error;
    }
    return undefined;
  };

  it('passes the token as a bearer, in any case of the scheme', () => {
    expect(refusal(`Bearer ${TOKEN}`)).toBeUndefined();
    expect(refusal(`bearer  ${TOKEN} `)).toBeUndefined();
  });

  it('refuses anything else with a 401 and a Bearer challenge', () => {
    for (const header of [undefined, '', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer scrape-me']) {
      const problem = refusal(header);
      expect(problem?.status, header).toBe(401);
      expect(problem?.headers).toEqual({ 'www-authenticate': 'Bearer realm="metrics"' });
    }
    expect(refusal('Bearer wrong')?.detail).toBe('The metrics token is not recognised.');
  });
});

describe('/metrics on the API', () => {
  let open: TestApp;
  let guarded: TestApp;
  beforeAll(async () => {
    open = await testApp();
    guarded = await testApp('sqlite', { metricsToken: TOKEN, unauthenticatedRate: 3 });
  });
  afterAll(async () => {
    await open.close();
    await guarded.close();
  });

  it('needs no token by default', async () => {
    expect((await open.app.inject('/metrics')).statusCode).toBe(200);
  });

  it('needs the metrics token when one is set, answering 401 otherwise', async () => {
    const without = await guarded.app.inject('/metrics');
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(without.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    const scraped = await guarded.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toContain('enrich_http_requests_total');
    // An API key is not the metrics token.
    expect(
      (await guarded.app.inject({ url: '/metrics', headers: { authorization: guarded.auth } })).statusCode,
    ).toBe(401);
  });

  it('charges wrong tokens to the client address, as any request without a valid token', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const guess = await guarded.app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer guess-${i}-0123456789` },
        remoteAddress: '203.0.113.9',
      });
      statuses.push(guess.statusCode);
    }
    expect(statuses).toContain(429);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
  });
});

describe('/metrics on an address of its own', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-metrics-'));
    const config = loadConfig(
      { port: '0', db: join(dir, 'enrich.db') },
      { LOG_LEVEL: 'silent', ENRICH_METRICS_ADDRESS: '127.0.0.1:0', ENRICH_METRICS_TOKEN: TOKEN },
    );
    server = await startServer(config, openSqliteStore(config.dbPath));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /metrics there, with the token, and nothing else', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const scraped = await fetch(`${server.metricsUrl}/metrics`, { headers: auth });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('enrich_http_requests_total');
    expect((await fetch(`${server.metricsUrl}/metrics`)).status).toBe(401);
    const other = await fetch(`${server.metricsUrl}/people?id=fp1`, { headers: auth });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it('no longer serves /metrics on the API’s address', async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(404);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
