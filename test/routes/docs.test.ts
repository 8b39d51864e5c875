import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

const SCALAR = join(
  dirname(createRequire(import.meta.url).resolve('@scalar/fastify-api-reference')),
  'js',
  'standalone.js',
);

let t: TestApp;
let bundleUrl: string;
beforeAll(async () => {
  t = await testApp();
  const html = (await t.app.inject('/docs')).body;
  bundleUrl = `/${/<script src="(docs\/scalar\.[0-9a-f]+\.js)"/.exec(html)![1]}`;
});
afterAll(() => t.close());

describe('the reference page', () => {
  it("is titled with the service's name, not the renderer's", async () => {
    const res = await t.app.inject('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>Enrich API reference</title>');
    expect(res.body).not.toMatch(/Scalar API Reference/);
  });

  it('names no other host: the renderer and the document come from this server', async () => {
    const { body, headers } = await t.app.inject('/docs');
    expect(body).not.toMatch(/(https?:)?\/\/[a-z]/i);
    const policy = String(headers['content-security-policy']);
    expect(policy).toMatch(/default-src 'self'/);
    expect(policy).toMatch(/connect-src 'self'/);
    expect(policy).not.toMatch(/https?:/);
  });

  it('is revalidated on every visit, and answers 304 when unchanged', async () => {
    const res = await t.app.inject('/docs');
    expect(res.headers['cache-control']).toBe('no-cache');
    const again = await t.app.inject({ url: '/docs', headers: { 'if-none-match': res.headers.etag! } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('is also reached at /docs/, by a redirect that keeps any path prefix', async () => {
    const res = await t.app.inject('/docs/');
    expect(res.statusCode).toBe(301);
    expect(new URL(res.headers.location!, 'http://x/docs/').pathname).toBe('/docs');
  });

  it('leaves the OpenAPI document where it was', async () => {
    expect((await t.app.inject('/openapi.json')).json().openapi).toBe('3.1.0');
  });
});

describe("the renderer's script", () => {
  const original = readFileSync(SCALAR);

  it('is served at a content-hashed URL, cacheable for a year', async () => {
    const res = await t.app.inject(bundleUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(res.rawPayload.equals(original)).toBe(true);
  });

  it('is sent as it is to a client that asks for no compression', async () => {
    for (const headers of [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
    ]) {
      const res = await t.app.inject({ url: bundleUrl, headers });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.rawPayload.length).toBe(original.length);
    }
  });

  it('is sent brotli-compressed to a client that accepts it, gzip to one that accepts only gzip', async () => {
    const br = await t.app.inject({ url: bundleUrl, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(original.length / 3);
    expect(brotliDecompressSync(br.rawPayload).equals(original)).toBe(true);

    const gzip = await t.app.inject({ url: bundleUrl, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).equals(original)).toBe(true);
    expect(gzip.headers.etag).not.toBe(br.headers.etag);
  });

  it('answers 304 to a client that holds it, in whichever encoding', async () => {
    const gzip = await t.app.inject({ url: bundleUrl, headers: { 'accept-encoding': 'gzip' } });
    const res = await t.app.inject({
      url: bundleUrl,
      headers: { 'accept-encoding': 'br', 'if-none-match': `W/${gzip.headers.etag}` },
    });
    expect(res.statusCode).toBe(304);
    expect(res.headers['cache-control']).toMatch(/immutable/);
    const stale = await t.app.inject({ url: bundleUrl, headers: { 'if-none-match': '"0123456789abcdef"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('is not found under any other name', async () => {
    const res = await t.app.inject('/docs/scalar.0123456789abcdef.js');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });
});
