import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANIES, PEOPLE, type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

describe.each(SETUPS)('on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    send({ method: 'GET', url, headers: { authorization: t.auth, ...headers } });

  describe('person lookup', () => {
    it.each([
      ['id', 'fp000000000001'],
      ['ln_slug', 'Jane-Citizen'],
      ['ln_url', 'https://au.linkedin.com/in/jane-citizen/?trk=x#top'],
      ['ln_url', 'linkedin.com/in/JANE-CITIZEN'],
      ['work_email', '  Jane.Citizen@ACME.com.au '],
      ['personal_email', 'JANE@gmail.com'],
    ])('finds the person by %s (%s)', async (param, value) => {
      const res = await get(`/people?${param}=${encodeURIComponent(value)}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toBe(JSON.stringify(PEOPLE[0]));
      expect(res.headers['enrich-matched-by']).toBe(param);
      expect(res.headers.etag).toMatch(/^".+"$/);
    });

    it('serves the record exactly as stored: nulls kept, odd types kept, order kept', async () => {
      const res = await get('/people?id=fp000000000001');
      expect(res.body).toBe(JSON.stringify(PEOPLE[0]));
      expect(res.json().middle_name).toBeNull();
      expect(res.json().social_media.github.handle).toBe(42);
    });

    it('finds a non-ASCII slug given percent-encoded or raw', async () => {
      for (const url of [
        'https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa',
        'https://www.linkedin.com/in/JOSÉ-GARCÍA/',
      ]) {
        const res = await get(`/people?ln_url=${encodeURIComponent(url)}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().id).toBe('fp000000000002');
      }
    });

    it('is also served under /v1/', async () => {
      const res = await get('/v1/people?id=fp000000000003');
      expect(res.statusCode).toBe(200);
      expect(res.json().name).toBe('Sam Lee');
    });

    it('answers HEAD like GET without a body', async () => {
      const res = await send({
        method: 'HEAD',
        url: '/people?id=fp000000000003',
        headers: { authorization: t.auth },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
    });

    it('ignores an identifier that matches nothing when another matches', async () => {
      const res = await get('/people?id=fp000000000003&work_email=nobody@nowhere.com');
      expect(res.statusCode).toBe(200);
      expect(res.headers['enrich-matched-by']).toBe('id');
    });

    it('lists every parameter that matched the one record', async () => {
      const res = await get('/people?id=fp000000000001&work_email=jane.citizen@acme.com.au');
      expect(res.headers['enrich-matched-by']).toBe('id, work_email');
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const first = await get('/people?id=fp000000000001');
      const again = await get('/people?work_email=jane.citizen@acme.com.au', {
        'if-none-match': first.headers.etag as string,
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      const other = await get('/people?id=fp000000000001', { 'if-none-match': '"something-else"' });
      expect(other.statusCode).toBe(200);
    });

    it('answers 404 problem when nothing matches', async () => {
      const res = await get('/people?work_email=nobody@nowhere.com');
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body).toMatchObject({ status: 404, code: 'not_found', title: 'Not found' });
      expect(body.type).toMatch(/^https:\/\//);
      expect(body.request_id).toBe(res.headers['x-request-id']);
    });

    it('answers 409 for a shared inbox, listing the ids it matched', async () => {
      const res = await get('/people?work_email=info@acme.com.au');
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'ambiguous_match',
        matches: { work_email: ['fp000000000001', 'fp000000000002'] },
      });
    });

    it('answers 409 when different parameters match different people', async () => {
      const res = await get('/people?id=fp000000000003&work_email=jose@acme.com.au');
      expect(res.statusCode).toBe(409);
      expect(res.json().matches).toEqual({ id: ['fp000000000003'], work_email: ['fp000000000002'] });
    });
  });

  describe('company lookup', () => {
    it.each([
      ['id', 'f000000000001'],
      ['ln_slug', 'ACME-holdings'],
      ['ln_url', 'https://www.linkedin.com/company/acme-holdings/about/'],
      ['fqdn', 'ACME.com.au.'],
      ['website', 'http://www.acme.com.au:8080/contact?x=1'],
      ['website', 'shop.acme.com.au'],
      ['abn', '51 824 753 556'],
    ])('finds the company by %s (%s)', async (param, value) => {
      const res = await get(`/company?${param}=${encodeURIComponent(value)}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(JSON.stringify(COMPANIES[0]));
    });

    it('prefers a subdomain on file to its registrable domain', async () => {
      const res = await get('/company?fqdn=shop.other.com.au');
      expect(res.json().id).toBe('f000000000002');
    });

    it('rejects an ABN that is not 11 digits, and one failing the checksum, saying which', async () => {
      const short = await get('/company?abn=1234');
      expect(short.statusCode).toBe(400);
      expect(short.json().detail).toMatch(/11 digits/);
      const bad = await get('/company?abn=51824753557');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().detail).toMatch(/checksum/);
    });

    it('rejects a profile URL given to /company and a company URL given to /people', async () => {
      expect((await get('/company?ln_url=https://www.linkedin.com/in/jane-citizen')).statusCode).toBe(400);
      const res = await get('/people?ln_url=https://www.linkedin.com/company/acme-holdings');
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_parameter');
    });
  });

  describe('bad requests', () => {
    it.each([
      ['/people', 'missing_identifier'],
      ['/people?email=a@b.co', 'unknown_parameter'],
      ['/people?fqdn=acme.com.au', 'unknown_parameter'],
      ['/people?id=a&id=b', 'invalid_parameter'],
      ['/people?id=', 'invalid_parameter'],
      [`/people?id=${'x'.repeat(2049)}`, 'invalid_parameter'],
      ['/people?work_email=not-an-email', 'invalid_parameter'],
      ['/company?website=%%%', 'invalid_parameter'],
      ['/people?id=%E0%A4%A', 'invalid_parameter'],
    ])('%s is a 400 %s', async (url, code) => {
      const res = await get(url);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe(code);
    });

    it('names the unknown parameter and the accepted ones', async () => {
      const res = await get('/people?email=a@b.co');
      expect(res.json().detail).toContain('"email"');
      expect(res.json().accepted).toEqual([
        'id',
        'ln_slug',
        'ln_url',
        'work_email',
        'personal_email',
        'work_email_sha256',
        'personal_email_sha256',
        'name',
        'first_name',
        'last_name',
        'company_id',
        'company_domain',
        'company_ln_slug',
        'company_name',
        'min_likelihood',
      ]);
    });

    it('never echoes an identifier value in an error', async () => {
      const res = await get('/people?work_email=secret.person@private.example');
      expect(res.body).not.toContain('secret.person');
    });

    it('answers 405 with Allow to a wrong method on a lookup path', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
        const res = await send({
          method,
          url: '/v1/company?id=f000000000001',
          headers: { authorization: t.auth },
        });
        expect(res.statusCode).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD');
        expect(res.json().code).toBe('method_not_allowed');
      }
    });

    it('answers an unknown path with a 404 problem', async () => {
      const res = await get('/nope');
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    });

    it('answers a malformed URL with a 400 problem that does not quote it', async () => {
      for (const url of ['/healthz%zz', '/people%zz?work_email=jane%40acme.com.au']) {
        const res = await get(url);
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json().code).toBe('invalid_parameter');
        expect(res.body).not.toContain('jane');
        expect(res.body).not.toContain('%zz');
      }
    });

    it('puts a request id on every response, echoing a safe one given', async () => {
      const res = await get('/people?id=fp000000000001', { 'x-request-id': 'abc-123' });
      expect(res.headers['x-request-id']).toBe('abc-123');
      const fresh = await get('/healthz', { 'x-request-id': 'bad id with spaces' });
      expect(fresh.headers['x-request-id']).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
    });
  });
});
