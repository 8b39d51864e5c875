// /v1/watchlists: a key's own watchlists, entries resolved as lookups resolve them (JSON and NDJSON), paged
// and removed; another key's watchlist is a 404.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, ROBERT, seed, type TestApp, testApp } from '../helpers/app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TestApp;
  let writer: string;
  let reader: string;
  beforeAll(async () => {
    t = await testApp(backend);
    await seed(t.store, 'people', [ROBERT]);
    writer = (await t.newKey({ scopes: ['changes:read', 'changes:write'] })).auth;
    reader = (await t.newKey({ scopes: ['changes:read'] })).auth;
  });
  afterAll(() => t.close());

  const call = (auth: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: auth },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const create = async (name: string, auth = writer) => {
    const res = await call(auth, 'POST', '/v1/watchlists', { name });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string; name: string; size: number };
  };
  const ndjson = (auth: string, id: string, lines: string[]) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/watchlists/${id}/entries`,
      headers: { authorization: auth, 'content-type': 'application/x-ndjson' },
      payload: `${lines.join('\n')}\n`,
    });

  it('creates, lists, shows and deletes a watchlist, each key seeing only its own', async () => {
    const made = await create('Champions');
    expect(made).toEqual({ id: expect.stringMatching(/^wl_[0-9A-Za-z]{12}$/), name: 'Champions', size: 0 });
    const other = (await t.newKey({ scopes: ['changes:read', 'changes:write'] })).auth;
    const theirs = await create('Theirs', other);

    expect((await call(writer, 'GET', `/v1/watchlists/${made.id}`)).json()).toEqual(made);
    const listed = (await call(writer, 'GET', '/v1/watchlists')).json().data as Array<{ id: string }>;
    expect(listed.map((w) => w.id)).toContain(made.id);
    expect(listed.map((w) => w.id)).not.toContain(theirs.id);

    for (const [method, url] of [
      ['GET', `/v1/watchlists/${theirs.id}`],
      ['DELETE', `/v1/watchlists/${theirs.id}`],
      ['GET', `/v1/watchlists/${theirs.id}/entries`],
    ] as const) {
      const res = await call(writer, method, url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('not_found');
    }
    const adding = await call(writer, 'POST', `/v1/watchlists/${theirs.id}/entries`, {
      entries: [{ person: { id: 'fp000000000001' } }],
    });
    expect(adding.statusCode).toBe(404);

    const deleted = await call(writer, 'DELETE', `/v1/watchlists/${made.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call(writer, 'GET', `/v1/watchlists/${made.id}`)).statusCode).toBe(404);
    expect((await call(other, 'GET', `/v1/watchlists/${theirs.id}`)).statusCode).toBe(200);
  });

  it('asks changes:write to change and changes:read to read, and refuses a bad name', async () => {
    const made = await create('Scopes');
    expect((await call(reader, 'POST', '/v1/watchlists', { name: 'x' })).json().code).toBe('forbidden');
    expect((await call(reader, 'GET', `/v1/watchlists/${made.id}`)).statusCode).toBe(404);
    expect((await call(t.auth, 'GET', '/v1/watchlists')).statusCode).toBe(403);
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: ' \t\n' },
      { name: 'a', colour: 'red' },
      { name: 7 },
    ]) {
      const res = await call(writer, 'POST', '/v1/watchlists', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_body');
    }
    // 200 characters, counted as the document's maxLength counts them: each emoji is one (two UTF-16 units).
    expect((await call(writer, 'POST', '/v1/watchlists', { name: '🦘'.repeat(200) })).statusCode).toBe(201);
  });

  it('resolves each entry as its lookup would, by any identifier, and watches those found', async () => {
    const { id } = await create('Accounts');
    const res = await call(writer, 'POST', `/v1/watchlists/${id}/entries`, {
      entries: [
        { person: { work_email: 'Jane.Citizen@acme.com.au' }, ref: 'jane' },
        { person: { ln_url: 'https://www.linkedin.com/in/josé-garcía' }, ref: 'jose' },
        { person: { personal_email_sha256: sha256('sam.lee@outlook.com') } },
        { person: { first_name: 'Robert', last_name: 'Example', company_domain: 'acme.com.au' }, ref: 'rob' },
        { company: { fqdn: 'acme.com.au' }, ref: 'acme' },
        { person: { work_email: 'nobody@nowhere.com' }, ref: 'gone' },
        { person: { work_email: 'info@acme.com.au' }, ref: 'shared' },
        { person: { email: 'jane@gmail.com' }, ref: 'typo' },
        { company: { ln_slug: 'shop-other' } },
      ],
    });
    expect(res.statusCode).toBe(200);
    const { results, size } = res.json();
    expect(results.map((r: { status: string }) => r.status)).toEqual([
      'watching',
      'watching',
      'watching',
      'watching',
      'watching',
      'not_found',
      'ambiguous',
      'invalid',
      'watching',
    ]);
    expect(results[0]).toEqual({ ref: 'jane', status: 'watching', person_id: 'fp000000000001' });
    expect(results[1].person_id).toBe('fp000000000002');
    expect(results[2]).toEqual({ status: 'watching', person_id: 'fp000000000003' });
    expect(results[3].person_id).toBe(ROBERT.id);
    expect(results[4]).toEqual({ ref: 'acme', status: 'watching', company_id: 'f000000000001' });
    expect(results[5].problem).toMatchObject({ status: 404, code: 'not_found' });
    // An ambiguous entry says so without naming the records it matched.
    expect(results[6].problem).toMatchObject({ status: 409, code: 'ambiguous_match' });
    expect(results[6].problem.matches).toBeUndefined();
    expect(results[7].problem).toMatchObject({ status: 400, code: 'unknown_parameter' });
    expect(size).toBe(6);

    // The same person again keeps their place and takes the new ref.
    const again = await call(writer, 'POST', `/v1/watchlists/${id}/entries`, {
      entries: [{ person: { id: 'fp000000000001' }, ref: 'jane-2' }],
    });
    expect(again.json()).toEqual({
      results: [{ ref: 'jane-2', status: 'watching', person_id: 'fp000000000001' }],
      size: 6,
    });
    expect((await call(reader, 'GET', '/v1/watchlists')).statusCode).toBe(200);
    expect((await call(writer, 'GET', `/v1/watchlists/${id}`)).json().size).toBe(6);
  });

  it('pages through entries in the order added and removes one by its id', async () => {
    const { id } = await create('Paged');
    await call(writer, 'POST', `/v1/watchlists/${id}/entries`, {
      entries: [
        { person: { id: 'fp000000000001' }, ref: 'a' },
        { company: { id: 'f000000000002' } },
        { person: { id: 'fp000000000003' }, ref: 'c' },
      ],
    });
    const first = (await call(writer, 'GET', `/v1/watchlists/${id}/entries?limit=2`)).json();
    expect(first.data).toEqual([
      { id: expect.stringMatching(/^we_\d+$/), kind: 'person', person_id: 'fp000000000001', ref: 'a' },
      { id: expect.stringMatching(/^we_\d+$/), kind: 'company', company_id: 'f000000000002', ref: null },
    ]);
    expect(first.has_more).toBe(true);
    expect(first.next).toBe(first.data[1].id);
    const second = (
      await call(writer, 'GET', `/v1/watchlists/${id}/entries?limit=2&after=${first.next}`)
    ).json();
    expect(second.data.map((e: { ref: string }) => e.ref)).toEqual(['c']);
    expect(second.has_more).toBe(false);

    const removed = await call(writer, 'DELETE', `/v1/watchlists/${id}/entries/${first.data[1].id}`);
    expect(removed.statusCode).toBe(204);
    expect(
      (await call(writer, 'DELETE', `/v1/watchlists/${id}/entries/${first.data[1].id}`)).statusCode,
    ).toBe(404);
    expect((await call(writer, 'DELETE', `/v1/watchlists/${id}/entries/nope`)).statusCode).toBe(404);
    const left = (await call(writer, 'GET', `/v1/watchlists/${id}/entries`)).json();
    expect(left.data.map((e: { ref: string }) => e.ref)).toEqual(['a', 'c']);
    expect((await call(writer, 'GET', `/v1/watchlists/${id}`)).json().size).toBe(2);

    for (const query of ['limit=0', 'limit=1001', 'limit=x', 'after=12', 'colour=red']) {
      const res = await call(writer, 'GET', `/v1/watchlists/${id}/entries?${query}`);
      expect(res.statusCode).toBe(400);
    }
  });

  it('refuses a JSON body of the wrong shape whole, naming where, and more than 1,000 entries', async () => {
    const { id } = await create('Shapes');
    const url = `/v1/watchlists/${id}/entries`;
    for (const [body, path] of [
      [{}, '$.entries'],
      [{ entries: [] }, '$.entries'],
      [{ entries: [{ person: { id: 'fp000000000001' }, company: { id: 'f000000000001' } }] }, '$.entries[0]'],
      [{ entries: [{ person: 'fp000000000001' }] }, '$.entries[0].person'],
      [{ entries: [{ person: { id: 'fp000000000001' }, ref: 5 }] }, '$.entries[0].ref'],
    ] as const) {
      const res = await call(writer, 'POST', url, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_body', path });
    }
    const many = { entries: Array.from({ length: 1001 }, () => ({ person: { id: 'fp000000000001' } })) };
    expect((await call(writer, 'POST', url, many)).statusCode).toBe(413);
    expect((await call(writer, 'GET', `/v1/watchlists/${id}`)).json().size).toBe(0);
  });

  it('adds an NDJSON body line by line, a result per line, bad lines answered invalid', async () => {
    const { id } = await create('Stream');
    const lines = [
      JSON.stringify({ person: { id: 'fp000000000001' }, ref: 'one' }),
      '',
      'not json',
      JSON.stringify({ ref: 'bare' }),
      JSON.stringify({ company: { fqdn: 'acme.com.au' } }),
      ...Array.from({ length: 2500 }, (_, i) =>
        JSON.stringify({ person: { id: `fp9${String(i).padStart(11, '0')}` } }),
      ),
    ];
    const res = await ndjson(writer, id, lines);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const results = res.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toHaveLength(lines.length - 1);
    expect(results[0]).toEqual({ ref: 'one', status: 'watching', person_id: 'fp000000000001' });
    expect(results[1]).toMatchObject({ status: 'invalid', problem: { code: 'invalid_body', line: 3 } });
    expect(results[2]).toMatchObject({ ref: 'bare', status: 'invalid', problem: { line: 4 } });
    expect(results[3]).toEqual({ status: 'watching', company_id: 'f000000000001' });
    expect(results.slice(4).every((r: { status: string }) => r.status === 'not_found')).toBe(true);
    expect((await call(writer, 'GET', `/v1/watchlists/${id}`)).json().size).toBe(2);
  });

  it('answers an NDJSON body to a missing watchlist or without the scope with a problem, adding nothing', async () => {
    const line = JSON.stringify({ person: { id: 'fp000000000001' } });
    expect((await ndjson(writer, 'wl_nope', [line])).statusCode).toBe(404);
    const { id } = await create('Guarded');
    expect((await ndjson(reader, id, [line])).statusCode).toBe(403);
    expect((await call(writer, 'GET', `/v1/watchlists/${id}`)).json().size).toBe(0);
  });
});

describe('an NDJSON body over a socket', () => {
  it('is answered batch by batch as it arrives, before the client has sent the rest', async () => {
    const t = await testApp('sqlite');
    try {
      const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { auth } = await t.newKey({ scopes: ['changes:read', 'changes:write'] });
      const made = await t.app.inject({
        method: 'POST',
        url: '/v1/watchlists',
        headers: { authorization: auth },
        payload: { name: 'Socket' },
      });
      const lines = (n: number, from: number) =>
        Array.from({ length: n }, (_, i) => `{"person":{"id":"fp000000000001"},"ref":"r${from + i}"}\n`).join(
          '',
        );
      const request = http.request(`${url}/v1/watchlists/${made.json().id}/entries`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-ndjson' },
      });
      const response = new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
      request.write(lines(1000, 0));
      const res = await response;
      expect(res.statusCode).toBe(200);
      let body = '';
      res.setEncoding('utf8');
      const firstBatch = new Promise<void>((resolve) => {
        res.on('data', (text: string) => {
          body += text;
          if (body.split('\n').length > 1000) resolve();
        });
      });
      // The first thousand results come while the request is still open.
      await firstBatch;
      request.end(lines(500, 1000));
      await new Promise((resolve) => res.once('end', resolve));
      const results = body
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(results).toHaveLength(1500);
      expect(results.at(-1)).toEqual({ ref: 'r1499', status: 'watching', person_id: 'fp000000000001' });
    } finally {
      await t.close();
    }
  });
});
