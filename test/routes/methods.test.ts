// One rule for methods: every path the document lists, asked with a method it does not list, is a 405 whose
// Allow names the methods it does; a path nothing serves is a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

let t: TestApp;
let paths: Record<string, Record<string, unknown>>;
beforeAll(async () => {
  t = await testApp();
  paths = (await t.app.inject('/openapi.json')).json().paths;
});
afterAll(() => t.close());

/** The methods the document lists for `path`, as Allow names them (HEAD beside every GET). */
function documented(path: string): string[] {
  const listed = Object.keys(paths[path]!).map((method) => method.toUpperCase());
  return METHODS.filter((method) => listed.includes(method) || (method === 'HEAD' && listed.includes('GET')));
}

describe('a known path asked with a method it does not serve', () => {
  it('is a 405 problem with Allow, for every path of the document and every other method', async () => {
    expect(Object.keys(paths).length).toBeGreaterThan(10);
    for (const path of Object.keys(paths)) {
      const allow = documented(path);
      for (const method of METHODS.filter((m) => !allow.includes(m))) {
        const res = await t.app.inject({
          method: method as 'GET',
          url: path,
          headers: { authorization: t.auth },
        });
        expect(res.statusCode, `${method} ${path}`).toBe(405);
        expect(res.headers.allow, `${method} ${path}`).toBe(allow.join(', '));
        expect(res.headers['x-request-id']).toBeDefined();
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        if (method === 'HEAD') continue;
        expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
      }
    }
  });

  it('is a 405 for TRACE on a lookup and any wrong method on the operations routes', async () => {
    for (const [method, url, allow] of [
      ['TRACE', '/people?id=fp000000000001', 'GET, HEAD'],
      ['TRACE', '/v1/company?id=f000000000001', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/metrics', 'GET, HEAD'],
      ['PUT', '/openapi.yaml', 'GET, HEAD'],
      ['POST', '/v1/usage', 'GET, HEAD'],
      ['GET', '/v1/people/search', 'POST'],
      ['GET', '/people/search?seniority=1', 'POST'],
    ] as const) {
      const res = await t.app.inject({ method: method as 'GET', url, headers: { authorization: t.auth } });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
    }
  });

  it('is a 405, not a 413, when a GET carries a body to a POST-only route, and the connection closes', async () => {
    for (const url of ['/v1/people/search', '/v1/company/bulk', '/v1/people/lookup']) {
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: t.auth, 'content-type': 'application/json' },
        payload: '{"filters":{}}',
      });
      expect(res.statusCode, url).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.headers.connection).toBe('close');
    }
  });

  it('is a 405 before the body is read, whatever its content type', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/v1/people/bulk',
      headers: { authorization: t.auth, 'content-type': 'text/csv' },
      payload: 'id\nfp000000000001\n',
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('a path nothing serves', () => {
  it('is a 404 problem, whatever the method', async () => {
    for (const method of METHODS) {
      const res = await t.app.inject({ method: method as 'GET', url: '/nothing/here' });
      expect(res.statusCode, method).toBe(404);
    }
  });

  it('is a 404 for a file of /docs that is not there, though /docs/… is served', async () => {
    expect((await t.app.inject('/docs/nothing.js')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/docs/nothing.js' })).statusCode).toBe(405);
  });
});
