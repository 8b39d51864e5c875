import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type TestApp, testApp } from '../helpers/app.js';

/** A person whose record is well past the compression threshold, and would shrink a lot. */
const LONG = {
  id: 'fp000000000777',
  name: 'Lee Long',
  description: 'Keeps the books. '.repeat(400),
  skills: Array.from({ length: 200 }, (_, i) => `bookkeeping ${i}`),
};

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await testApp();
  await seed(t.store, 'people', [LONG]);
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

const decoders = { gzip: gunzipSync, br: brotliDecompressSync };

describe('compression of large responses', () => {
  it.each(['gzip', 'br'] as const)(
    'sends the OpenAPI document %s-encoded when the client asks',
    async (encoding) => {
      const plain = await t.app.inject('/openapi.json');
      const res = await t.app.inject({ url: '/openapi.json', headers: { 'accept-encoding': encoding } });
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
      expect(decoders[encoding](res.rawPayload).toString()).toBe(plain.body);
    },
  );

  it('sends the OpenAPI document as it is to a client that does not ask', async () => {
    const res = await t.app.inject('/openapi.json');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().openapi).toBe('3.1.0');
  });

  it('still serves /metrics, compressed for a scraper that asks and plain otherwise', async () => {
    const plain = await t.app.inject('/metrics');
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toMatch(/^# HELP/m);
    const gzip = await t.app.inject({ url: '/metrics', headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.statusCode).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toMatch(/enrich_http_requests_total/);
  });

  it('leaves small answers alone', async () => {
    const res = await t.app.inject({ url: '/healthz', headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('never compresses a lookup: the record goes byte for byte, on the server and through the router', async () => {
    const headers = { authorization: t.auth, 'accept-encoding': 'gzip, br' };
    const record = JSON.stringify(LONG);
    expect(record.length).toBeGreaterThan(8 * 1024);
    const served = await fetch(`${url}/people?id=${LONG.id}`, { headers });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-encoding')).toBeNull();
    expect(served.headers.get('content-length')).toBe(String(Buffer.byteLength(record)));
    expect(await served.text()).toBe(record);
    const routed = await t.app.inject({ url: `/v1/people?id=${LONG.id}`, headers });
    expect(routed.headers['content-encoding']).toBeUndefined();
    expect(routed.body).toBe(record);
  });
});
