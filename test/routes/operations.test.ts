import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { type TestApp, testApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe('operations endpoints', () => {
  it('answer without a token', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('count requests by route and status, and lookups by outcome, in /metrics', async () => {
    await t.app.inject({ url: '/people?id=fp000000000001', headers: { authorization: t.auth } });
    await t.app.inject({ url: '/people?id=fp000000000999', headers: { authorization: t.auth } });
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/enrich_http_requests_total\{method="GET",route="\/people",status="200"\} 1/);
    expect(res.body).toMatch(/enrich_lookups_total\{entity="people",outcome="not_found"\} 1/);
    expect(res.body).toMatch(/enrich_http_request_duration_seconds_bucket/);
  });

  it('describe the API as OpenAPI 3.1 with both lookups, their parameters and examples', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const people = doc.paths['/people'].get;
    expect(people.parameters.map((p: { name: string }) => p.name)).toEqual([
      'id',
      'ln_slug',
      'ln_url',
      'work_email',
      'personal_email',
    ]);
    expect(people.parameters[3].example).toBe('jane.citizen@acme.com.au');
    expect(Object.keys(people.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '409', '429']),
    );
    expect(doc.paths['/company'].get.parameters).toHaveLength(6);
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
  });

  it('render a readable reference at /docs', async () => {
    const res = await t.app.inject('/docs');
    const page = [301, 302].includes(res.statusCode)
      ? await t.app.inject(res.headers.location as string)
      : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it('report not ready, and lookups 5xx problems without internals, when the store fails', async () => {
    const store = openSqliteStore(':memory:');
    const app = await buildApp({ store });
    await store.close();
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(503);
    expect(ready.json().code).toBe('unavailable');
    const res = await app.inject({ url: '/people?id=x', headers: { authorization: t.auth } });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('internal');
    expect(res.body).not.toMatch(/SELECT|sqlite|at .*\.js/i);
    await app.close();
  });
});
