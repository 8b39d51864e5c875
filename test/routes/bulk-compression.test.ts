import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

describe('a bulk answer, compressed when the client asks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  const requests = Array.from({ length: 30 }, (_, i) => ({
    params: { id: `fp00000000000${(i % 3) + 1}` },
    ref: `row-${i}`,
  }));
  const post = (headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/people/bulk',
      headers: { authorization: t.auth, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ requests }),
    });

  it('is gzip or brotli as the client weighs them, and the same JSON once decompressed', async () => {
    const plain = await post();
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const gz = await post({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    const br = await post({ 'accept-encoding': 'gzip;q=0.5, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
  });

  it('is sent as it is to a client that accepts no compression', async () => {
    const res = await post({ 'accept-encoding': 'identity' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().results).toHaveLength(30);
  });
});
