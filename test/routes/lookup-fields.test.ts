// `fields` on GET lookups: the projection, its own entity tag and 304s, HEAD, and the 400s of a bad selection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANIES, PEOPLE, type TestApp, testApp } from '../helpers/app.js';
import { SETUPS, type Send, sender } from '../helpers/transport.js';

const JANE = PEOPLE[0]!;

describe.each(SETUPS)('fields on %s', (_label, backend, over) => {
  let t: TestApp;
  let send: Send;
  beforeAll(async () => {
    t = await testApp(backend);
    send = await sender(t.app, over);
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    send({ method, url, headers: { authorization: t.auth, ...headers } });

  it('answers only the fields asked for, and id, in the order of the stored record', async () => {
    const res = await get('/people?work_email=jane.citizen@acme.com.au&fields=emails.work.value,name');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['enrich-matched-by']).toBe('work_email');
    expect(res.body).toBe(
      JSON.stringify({
        id: JANE.id,
        name: JANE.name,
        emails: { work: [{ value: 'jane.citizen@acme.com.au' }, { value: 'info@acme.com.au' }] },
      }),
    );
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
  });

  it('keeps nulls, leaves absent fields absent, and takes dotted paths into objects', async () => {
    const res = await get(`/people?id=${JANE.id}&fields=middle_name,position,social_media.github.handle`);
    expect(res.json()).toEqual({ id: JANE.id, middle_name: null, social_media: { github: { handle: 42 } } });
    const company = await get('/company?fqdn=acme.com.au&fields=industry_codes.abn,au_employee_count');
    expect(company.json()).toEqual({
      id: COMPANIES[0]!.id,
      industry_codes: { abn: '51824753556' },
      au_employee_count: null,
    });
  });

  it("gives the projection an entity tag of its own: not the record's, one per selection, whatever its order", async () => {
    const whole = await get(`/people?id=${JANE.id}`);
    const named = await get(`/people?id=${JANE.id}&fields=name,linkedin`);
    const reordered = await get(`/people?id=${JANE.id}&fields=linkedin,%20name,name`);
    const other = await get(`/people?id=${JANE.id}&fields=name`);
    expect(named.headers.etag).toMatch(/^".+"$/);
    expect(named.headers.etag).not.toBe(whole.headers.etag);
    expect(reordered.headers.etag).toBe(named.headers.etag);
    expect(reordered.body).toBe(named.body);
    expect(other.headers.etag).not.toBe(named.headers.etag);
    // Selecting `id` alone is a selection too.
    expect((await get(`/people?id=${JANE.id}&fields=id`)).headers.etag).not.toBe(whole.headers.etag);
  });

  it("answers 304 to the projection's tag, and the projection to the whole record's", async () => {
    const url = `/people?ln_slug=jane-citizen&fields=name`;
    const first = await get(url);
    const again = await get(url, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const whole = await get(`/people?id=${JANE.id}`);
    const stale = await get(url, { 'if-none-match': whole.headers.etag as string });
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toBe(first.body);
    const wholeAgain = await get(`/people?id=${JANE.id}`, { 'if-none-match': first.headers.etag as string });
    expect(wholeAgain.statusCode).toBe(200);
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const url = `/people?id=${JANE.id}&fields=name`;
    const [getRes, headRes] = [await get(url), await get(url, {}, 'HEAD')];
    expect(headRes.statusCode).toBe(200);
    expect(headRes.body).toBe('');
    for (const name of ['etag', 'content-length', 'content-type', 'enrich-matched-by'])
      expect(headRes.headers[name], name).toBe(getRes.headers[name]);
  });

  it('serves the stored bytes without fields, as before', async () => {
    const res = await get(`/people?id=${JANE.id}`);
    expect(res.body).toBe(JSON.stringify(JANE));
  });

  it('is not an identifier: fields alone is missing_identifier', async () => {
    const res = await get('/people?fields=name');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('missing_identifier');
  });

  it.each([
    ['given twice', 'fields=name&fields=position', /more than once/],
    ['empty', 'fields=', /fields is empty/],
    ['only commas', 'fields=,,', /fields is empty/],
    ['too long', `fields=${'name,'.repeat(600)}`, /longer than 2048/],
  ])('is a 400 invalid_parameter when %s', async (_, query, detail) => {
    const res = await get(`/people?id=${JANE.id}&${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'fields' });
    expect(res.json().detail).toMatch(detail);
  });

  it('refuses an unknown field with a 400 listing the valid names', async () => {
    const res = await get(`/people?id=${JANE.id}&fields=name,current_company.nme`);
    expect(res.statusCode).toBe(400);
    const problem = res.json();
    expect(problem).toMatchObject({
      code: 'invalid_parameter',
      parameter: 'fields',
      field: 'current_company.nme',
    });
    expect(problem.detail).toContain('"current_company.nme"');
    expect(problem.accepted).toContain('current_company.name');
    expect(problem.accepted).toContain('emails.work.value');
    // Each entity lists its own fields.
    const company = await get('/company?fqdn=acme.com.au&fields=first_name');
    expect(company.statusCode).toBe(400);
    expect(company.json().accepted).toContain('industry_codes.abn');
  });

  it('checks the identifiers before the fields', async () => {
    const res = await get('/people?work_email=not-an-email&fields=nonsense');
    expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'work_email' });
  });
});
