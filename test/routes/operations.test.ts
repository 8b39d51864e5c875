import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Problems } from '../../src/errors.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { type TestApp, testApp } from '../helpers/app.js';

/** Headers of HTTP itself, which the document leaves to HTTP. */
/** Headers of the transport, and X-Content-Type-Options, on every response of every kind. */
const HTTP_HEADERS = [
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'x-content-type-options',
];

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe('operations endpoints', () => {
  it('answer without a token', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('count requests by route and status, and lookups by outcome, in /metrics', async () => {
    await t.app.inject({ url: '/people?id=fp000000000001', headers: { authorization: t.auth } });
    await t.app.inject({ url: '/people?id=fp000000000999', headers: { authorization: t.auth } });
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/enrich_http_requests_total\{method="GET",route="\/people",status="200"\} 1/);
    expect(res.body).toMatch(/enrich_lookups_total\{entity="people",outcome="not_found"\} 1/);
    expect(res.body).toMatch(/enrich_http_request_duration_seconds_bucket/);
    // The test's records were imported through this store: each appended a created event.
    expect(res.body).toMatch(/enrich_change_events_total\{type="person.created"\} [1-9]/);
  });

  it('describe the API as OpenAPI 3.1 with both lookups, their parameters and examples', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const people = doc.paths['/people'].get;
    expect(people.parameters.map((p: { name: string }) => p.name)).toEqual([
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
      'fields',
    ]);
    expect(people.parameters[3].examples.default).toEqual({
      value: 'jane.citizen@acme.com.au',
      'x-disabled': false,
    });
    expect(Object.keys(people.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '409', '429']),
    );
    expect(doc.paths['/company'].get.parameters).toHaveLength(7);
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
  });

  it('describe the POST lookups: the parameters as a JSON body, and the problems of a body', async () => {
    const { paths } = (await t.app.inject('/openapi.json')).json();
    for (const [path, operationId, get] of [
      ['/v1/people/lookup', 'lookupPersonPost', '/v1/people'],
      ['/v1/company/lookup', 'lookupCompanyPost', '/v1/company'],
    ] as const) {
      const post = paths[path].post;
      expect(post.operationId).toBe(operationId);
      expect(Object.keys(paths[path])).toEqual(['post']);
      const body = post.requestBody.content['application/json'].schema;
      const query = paths[get].get.parameters.map((p: { name: string }) => p.name);
      expect(Object.keys(body.properties)).toEqual(query);
      expect(body.additionalProperties).toBe(false);
      expect(body.properties.fields.anyOf.map((s: { type: string }) => s.type)).toEqual(['string', 'array']);
      expect(Object.keys(post.responses)).toEqual(
        expect.arrayContaining(['200', '304', '400', '413', '415']),
      );
    }
  });

  it('name the record, usage and problem schemas, with every extension member of a problem', async () => {
    const { components } = (await t.app.inject('/openapi.json')).json();
    expect(Object.keys(components.schemas)).toEqual(
      expect.arrayContaining(['Person', 'Company', 'Problem', 'Usage']),
    );
    const problem = components.schemas.Problem.properties;
    expect(Object.keys(problem)).toEqual(
      expect.arrayContaining(['code', 'request_id', 'parameter', 'accepted', 'matches', 'required_scope']),
    );
    expect(problem.code.enum).toEqual(Object.keys(Problems));
  });

  it('describe /people and /v1/people alike, under their own operation ids', async () => {
    const { paths } = (await t.app.inject('/openapi.json')).json();
    const ids = ['/people', '/v1/people', '/company', '/v1/company'].map(
      (path) => paths[path].get.operationId,
    );
    expect(ids).toEqual(['lookupPerson', 'lookupPersonV1', 'lookupCompany', 'lookupCompanyV1']);
    expect(paths['/v1/people'].get.parameters).toEqual(paths['/people'].get.parameters);
    expect(paths['/v1/people'].get.responses).toEqual(paths['/people'].get.responses);
  });

  it('declare errors as problem+json and the headers each response carries', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    const lookup = doc.paths['/v1/people'].get.responses;
    expect(Object.keys(lookup[200].headers).sort()).toEqual(
      [
        'Cache-Control',
        'ETag',
        'Enrich-Matched-By',
        'Enrich-Match-Likelihood',
        'Enrich-Quota-Remaining',
        'RateLimit',
        'RateLimit-Policy',
        'X-Request-Id',
      ].sort(),
    );
    expect(lookup[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Person' });
    // Only a person is matched by name: a company's answer never says how likely.
    expect(doc.paths['/v1/company'].get.responses[200].headers['Enrich-Match-Likelihood']).toBeUndefined();
    expect(lookup[200].description).not.toBe('Default Response');
    const { responses } = doc.components;
    const resolve = (response: { $ref: string }) => responses[response.$ref.split('/').at(-1)!];
    for (const status of ['400', '401', '402', '403', '404', '409', '429', '500', '503']) {
      const problem = resolve(lookup[status]).content;
      expect(Object.keys(problem), status).toEqual(['application/problem+json']);
      expect(problem['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
    expect(Object.keys(resolve(lookup[429]).headers)).toContain('Retry-After');
    expect(Object.keys(resolve(lookup[503]).headers)).toContain('Retry-After');
    expect(resolve(lookup[304]).content).toBeUndefined();
    type Operation = { responses: Record<string, { description?: string }> };
    for (const path of Object.values<Record<string, Operation>>(doc.paths))
      for (const operation of Object.values(path))
        for (const response of Object.values(operation.responses))
          expect(response.description).not.toBe('Default Response');
  });

  it('document every header a lookup answers with, found or not', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    const documented = (response: { $ref?: string; headers?: object }) => {
      const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').at(-1)!] : response;
      return Object.keys(resolved.headers).map((name) => name.toLowerCase());
    };
    const { auth } = await t.newKey({ quota: 100 });
    const { responses } = doc.paths['/v1/people'].get;
    for (const query of ['id=fp000000000001', 'id=fp000000000999', 'work_email=info@acme.com.au', 'id=%20']) {
      const res = await t.app.inject({ url: `/v1/people?${query}`, headers: { authorization: auth } });
      const sent = Object.keys(res.headers).filter((name) => !HTTP_HEADERS.includes(name));
      expect(documented(responses[res.statusCode]), `${res.statusCode}`).toEqual(
        expect.arrayContaining(sent),
      );
    }
  });

  it('say anyone may call the operations endpoints, and whose license it is', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/openapi.yaml'])
      expect(doc.paths[path].get.security, path).toEqual([]);
    expect(doc.info.license.identifier).toBe('MIT');
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('serve the same document as YAML at /openapi.yaml', async () => {
    const res = await t.app.inject('/openapi.yaml');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.body).toMatch(/^openapi: 3\.1\.0\n/);
    expect(res.body).toContain('operationId: lookupPersonV1');
    expect(res.body).not.toMatch(/[&*]a\d/); // no YAML anchors or aliases
  });

  it('render a readable reference at /docs', async () => {
    const res = await t.app.inject('/docs');
    const page = [301, 302].includes(res.statusCode)
      ? await t.app.inject(res.headers.location as string)
      : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it('report not ready, and lookups 5xx problems without internals, when the store fails', async () => {
    const store = openSqliteStore(':memory:');
    const app = await buildApp({ store });
    await store.close();
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(503);
    expect(ready.json().code).toBe('unavailable');
    const res = await app.inject({ url: '/people?id=x', headers: { authorization: t.auth } });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('internal');
    expect(res.body).not.toMatch(/SELECT|sqlite|at .*\.js/i);
    await app.close();
  });
});
