// What the logs keep of requests: each route by its pattern, never its URL, so that no query value (an
// e-mail address, a name) is written down — on the access log and when a request fails alike (issue 26).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

const SECRET = 'secret.person';

describe('the logs of requests', () => {
  let t: TestApp;
  let lines: string[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await testApp('sqlite', { logger: { level: 'info', stream }, accessLog: true });
  });
  afterAll(() => t.close());

  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('name a failed search by its route and never write its query', async () => {
    lines = [];
    const searchPeople = t.store.searchPeople.bind(t.store);
    t.store.searchPeople = () => Promise.reject(new Error('the search index is gone'));
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: `/people/search?companyId=f000000000001&position=${SECRET}`,
        headers: { authorization: t.auth },
      });
      expect(res.statusCode).toBe(500);
    } finally {
      t.store.searchPeople = searchPeople;
    }
    const failed = logged().find((line) => line.msg === 'request failed');
    expect(failed).toMatchObject({ route: '/people/search', err: { message: 'the search index is gone' } });
    expect(logged().find((line) => line.msg === 'request')).toMatchObject({
      route: '/people/search',
      status: 500,
    });
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('give one access line per request, lookups and Fastify’s routes alike, none holding a value', async () => {
    lines = [];
    await t.app.inject({
      url: `/people?work_email=${SECRET}%40example.com`,
      headers: { authorization: t.auth },
    });
    await t.app.inject({ url: '/v1/usage', headers: { authorization: t.auth } });
    await t.app.inject({ method: 'POST', url: '/v1/people/search', payload: { q: SECRET } });
    const access = logged().filter((line) => line.msg === 'request');
    expect(access.map(({ method, route, status }) => [method, route, status])).toEqual([
      ['GET', '/people', 404],
      ['GET', '/v1/usage', 200],
      ['POST', '/v1/people/search', 401],
    ]);
    expect(access.every((line) => typeof line.reqId === 'string' && typeof line.ms === 'number')).toBe(true);
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});
