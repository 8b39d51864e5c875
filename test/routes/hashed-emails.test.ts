// Lookups by the SHA-256 of an e-mail address: the same record and tag as by the address, by GET and POST.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEOPLE, type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

/** `printf %s ADDRESS | sha256sum`, as the README shows. */
const sha256 = (address: string) => createHash('sha256').update(address).digest('hex');

describe.each(SETUPS)('hashed e-mail lookups on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
  });
  afterAll(() => t.close());

  const get = (query: string) => send({ url: `/v1/people?${query}`, headers: { authorization: t.auth } });
  const post = (body: object) =>
    send({
      method: 'POST',
      url: '/v1/people/lookup',
      headers: { authorization: t.auth, 'content-type': 'application/json' },
      payload: body,
    });

  it.each([
    ['work_email', 'jane.citizen@acme.com.au'],
    ['personal_email', 'jane@gmail.com'],
  ])('finds by %s_sha256 what %s finds: body and ETag, matched by the hash', async (param, address) => {
    const plain = await get(`${param}=${encodeURIComponent(address)}`);
    expect(plain.statusCode).toBe(200);
    for (const hash of [sha256(address), sha256(address).toUpperCase()]) {
      for (const res of [await get(`${param}_sha256=${hash}`), await post({ [`${param}_sha256`]: hash })]) {
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe(plain.body);
        expect(res.body).toBe(JSON.stringify(PEOPLE[0]));
        expect(res.headers.etag).toBe(plain.headers.etag);
        expect(res.headers['enrich-matched-by']).toBe(`${param}_sha256`);
      }
    }
  });

  it('hashes the address as a lookup normalises it: trimmed and lower-cased', async () => {
    expect((await get(`work_email_sha256=${sha256('jane.citizen@acme.com.au')}`)).statusCode).toBe(200);
    expect((await get(`work_email_sha256=${sha256('Jane.Citizen@ACME.com.au')}`)).statusCode).toBe(404);
  });

  it('answers 409 for a shared inbox by its hash, as by its address', async () => {
    const res = await get(`work_email_sha256=${sha256('info@acme.com.au')}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().matches).toEqual({ work_email_sha256: ['fp000000000001', 'fp000000000002'] });
  });

  it('agrees with the address when both are given, and lists both as matching', async () => {
    const res = await get(`work_email=jose%40acme.com.au&work_email_sha256=${sha256('jose@acme.com.au')}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['enrich-matched-by']).toBe('work_email, work_email_sha256');
  });

  it.each([
    ['too short', 'abc123'],
    ['not hex', 'z'.repeat(64)],
    ['an address', 'jane.citizen%40acme.com.au'],
  ])('refuses a hash that is %s with a 400 saying what is expected', async (_, value) => {
    for (const res of [
      await get(`work_email_sha256=${value}`),
      await post({ work_email_sha256: decodeURIComponent(value) }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'work_email_sha256' });
      expect(res.json().detail).toMatch(/64 hex digits/);
      expect(res.body).not.toContain('jane');
    }
  });

  it('is a person identifier only: /company does not take it', async () => {
    const res = await send({
      url: `/v1/company?work_email_sha256=${sha256('info@acme.com.au')}`,
      headers: { authorization: t.auth },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('unknown_parameter');
  });
});
