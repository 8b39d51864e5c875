import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

describe('response headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url, headers: { authorization: t.auth, ...headers } });

  it.each([
    ['a record', '/people?id=fp000000000001', true],
    ['a lookup that matches nothing', '/people?id=fp999999999999', true],
    ['a lookup without a token', '/company?fqdn=acme.com.au', false],
    ["the key's usage", '/v1/usage', true],
    ['usage without a token', '/v1/usage', false],
    ['liveness', '/healthz', false],
    ['the API document', '/openapi.json', false],
    ['the API reference page', '/docs', false],
    ['a path that does not exist', '/nothing-here', false],
    ['a URL that cannot be read', '/people%zz', true],
  ])('carry X-Content-Type-Options: nosniff on %s', async (_what, url, keyed) => {
    const response = keyed ? await get(url) : await t.app.inject({ url });
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each([
    ['a record', '/people?id=fp000000000001', 200],
    ['a company', '/v1/company?fqdn=acme.com.au', 200],
    ['a lookup that matches nothing', '/people?id=fp999999999999', 404],
    ["the key's usage", '/v1/usage', 200],
  ])('keep %s out of every cache: Cache-Control: private, no-store', async (_what, url, status) => {
    const response = await get(url);
    expect(response.statusCode).toBe(status);
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('still answer 304 to If-None-Match with the ETag of a record kept by no cache', async () => {
    const first = await get('/people?id=fp000000000001');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await get('/people?id=fp000000000001', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.headers['cache-control']).toBe('private, no-store');
    expect(again.headers.etag).toBe(etag);
    expect(again.body).toBe('');
  });

  it("leave the renderer's long cache alone: only personal data is kept from caches", async () => {
    const page = await get('/docs');
    const script = /src="docs\/(scalar\.[^"]+\.js)"/.exec(page.body)![1];
    const asset = await get(`/docs/${script}`);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(page.headers['cache-control']).toBe('no-cache');
  });
});

describe('request bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  it.each([
    ['a lookup', '/people?id=fp000000000001'],
    ["the key's usage", '/v1/usage'],
    ['liveness', '/healthz'],
  ])('are refused with 413 on %s, which takes none, and the connection is closed', async (_what, url) => {
    const response = await t.app.inject({
      method: 'GET',
      url,
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      payload: '{"id":"fp000000000001"}',
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(response.json().detail).toMatch(/takes no request body/);
    expect(response.headers.connection).toBe('close');
  });

  it('larger than 64 KiB are refused with 413 before any route reads them', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/people/search',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ padding: 'x'.repeat(65 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'payload_too_large' });
  });
});
