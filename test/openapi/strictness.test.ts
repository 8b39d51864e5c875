// The document states what the server accepts, no looser: ranges, enumerations, non-empty values, each
// entity's own field names, the media types of the document itself, and the headers of a tokenless 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectablePaths } from '../../src/lookup/fields.js';
import { Company } from '../../src/schemas/company.js';
import { type TestApp, testApp } from '../helpers/app.js';

// biome-ignore lint/suspicious/noExplicitAny: the parsed document, read member by member
type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await testApp();
  doc = (await t.app.inject('/openapi.json')).json();
});
afterAll(() => t.close());

const schemaOf = (name: string): Json => doc.components.schemas[name];
const queryParam = (path: string, method: string, name: string): Json =>
  doc.paths[path][method].parameters.find((p: Json) => p.name === name).schema;

describe('the document', () => {
  it('gives the deployed search whole numbers in their ranges and AU or NZ', () => {
    const param = (name: string) => queryParam('/people/search', 'post', name);
    expect(param('seniority')).toMatchObject({ type: 'integer', minimum: 1, maximum: 7 });
    expect(param('department')).toMatchObject({ type: 'integer', minimum: 1, maximum: 17 });
    expect(param('from')).toMatchObject({ type: 'integer', minimum: 0, maximum: 10_000 });
    expect(param('size')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(param('selectedCountry').enum).toEqual(['AU', 'NZ']);
    expect(doc.paths['/people/search'].post.description).toMatch(/at least one filter/);
  });

  it("bounds the /v1 searches' filters, and states that q or a filter is needed", () => {
    const people = schemaOf('PeopleSearchRequest').properties.filters.properties;
    expect(people.country.anyOf[0].enum).toEqual(['AU', 'Australia', 'NZ', 'New Zealand']);
    const years = schemaOf('CompanySearchRequest').properties.filters.properties.year_founded;
    expect(years.minProperties).toBe(1);
    expect(years.properties.gte).toMatchObject({ type: 'integer', minimum: -10_000, maximum: 10_000 });
    for (const name of ['PeopleSearchRequest', 'CompanySearchRequest']) {
      const { cursor, q } = schemaOf(name).properties;
      expect(cursor.minLength).toBe(1);
      expect(q).toMatchObject({ minLength: 1, maxLength: 2048 });
    }
    expect(doc.paths['/v1/people/search'].post.description).toMatch(/Give `q` or at least one filter/);
  });

  it('refuses empty identifiers and empty field lists, as the server does', () => {
    for (const path of ['/people', '/v1/company']) {
      for (const p of doc.paths[path].get.parameters) {
        expect(p.schema.minLength ?? p.schema.pattern, `${path} ${p.name}`).toBeTruthy();
        expect(new RegExp(p.schema.pattern, 'u').test(''), `${path} ${p.name}`).toBe(false);
      }
    }
    const body = doc.paths['/v1/people/lookup'].post.requestBody.content['application/json'].schema;
    expect(body.properties.fields.anyOf[1].minItems).toBe(1);
    expect(schemaOf('PeopleBulkRequest').properties.fields.minItems).toBe(1);
    expect(schemaOf('PeopleParams').properties.work_email.minLength).toBe(1);
  });

  it('gives the company bulk company fields, in its example and in what it accepts', () => {
    const fields = schemaOf('CompanyBulkRequest').properties.fields;
    const companyPaths = selectablePaths(Company);
    expect(fields.items.enum).toEqual(companyPaths);
    for (const name of fields.examples[0]) expect(companyPaths).toContain(name);
    const query = doc.paths['/v1/company/bulk'].post.parameters.find((p: Json) => p.name === 'fields');
    for (const name of query.example.split(',')) expect(companyPaths).toContain(name);
    expect(new RegExp(query.schema.pattern, 'u').test('name,current_company.name')).toBe(false);
  });

  it('documents /openapi.json as an object and /openapi.yaml as YAML text', () => {
    const json = doc.paths['/openapi.json'].get.responses[200].content;
    expect(json['application/json'].schema).toMatchObject({ type: 'object', required: expect.any(Array) });
    const yaml = doc.paths['/openapi.yaml'].get.responses[200].content;
    expect(yaml['application/yaml'].schema).toMatchObject({
      type: 'string',
      contentMediaType: 'application/yaml',
    });
  });

  it("says a tokenless request's 429 carries the address's RateLimit headers", () => {
    const limited = doc.components.responses.RateLimited;
    expect(Object.keys(limited.headers)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
    expect(limited.description).not.toMatch(/no RateLimit headers/);
    expect(limited.description).toMatch(/address's limit/);
  });

  it("documents the HTTP layer's own answers as problems", () => {
    const unreadable = doc.components.responses.UnreadableRequest;
    expect(Object.keys(unreadable.content)).toEqual(['application/problem+json']);
    expect(Object.keys(unreadable.content['application/problem+json'].examples)).toEqual([
      'malformed_request',
      'request_timeout',
      'uri_too_long',
      'headers_too_large',
    ]);
  });
});
