// The response checker every route test runs through (check-responses.ts): it passes what the document says,
// and names each way a response can differ from it.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkResponse } from './conformance.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
const live = { 'x-request-id': 'r-1', 'content-type': JSON_TYPE };
const body = (value: unknown) => Buffer.from(JSON.stringify(value));

const check =
  (status: number, headers: Record<string, unknown>, payload: Buffer, url = '/healthz') =>
  () =>
    checkResponse('GET', url, status, headers, payload);

describe('a response checked against the document', () => {
  it('passes when it is as documented, compressed or not, and for HEAD without a body', () => {
    expect(check(200, live, body({ status: 'ok' }))).not.toThrow();
    const gzipped = gzipSync(body({ status: 'ok' }));
    expect(check(200, { ...live, 'content-encoding': 'gzip' }, gzipped)).not.toThrow();
    expect(() => checkResponse('HEAD', '/healthz', 200, live, Buffer.alloc(0))).not.toThrow();
  });

  it('passes a path the document does not list, and a method it does not offer there', () => {
    expect(check(404, {}, Buffer.from('<html>'), '/nowhere')).not.toThrow();
    expect(() => checkResponse('DELETE', '/healthz', 405, {}, Buffer.alloc(0))).not.toThrow();
  });

  it('fails a status the operation does not document', () => {
    expect(check(302, live, Buffer.alloc(0))).toThrow(/GET \/healthz → 302: the status is not documented/);
  });

  it('fails a content type the response does not document', () => {
    expect(check(200, { ...live, 'content-type': 'text/html' }, Buffer.from('<p>ok'))).toThrow(
      /content type text\/html is not documented/,
    );
  });

  it('fails a body not of the documented schema, and one that is not the JSON it says', () => {
    expect(check(200, live, body({ status: 'fine' }))).toThrow(/body\/status must be equal to one of/);
    expect(check(200, live, Buffer.from('{"status":'))).toThrow(/the body is not application\/json/);
  });

  it('fails a service header the response does not document, and a required one missing', () => {
    expect(check(200, { ...live, ratelimit: '"default";r=1;t=1' }, body({ status: 'ok' }))).toThrow(
      /the header RateLimit is sent but not documented for this response/,
    );
    expect(check(200, { 'content-type': JSON_TYPE }, body({ status: 'ok' }))).toThrow(
      /the required header x-request-id is missing/,
    );
  });

  it('fails a documented header whose value is not of its schema', () => {
    const problem = body({
      type: 'https://enrich.dev/problems/rate-limited',
      title: 'Rate limited',
      status: 429,
      detail: 'Slow down.',
      code: 'rate_limited',
      request_id: 'r-1',
    });
    const headers = { 'x-request-id': 'r-1', 'content-type': PROBLEM_TYPE };
    expect(check(429, { ...headers, 'retry-after': '1' }, problem, '/v1/usage')).not.toThrow();
    expect(check(429, { ...headers, 'retry-after': 'soon' }, problem, '/v1/usage')).toThrow(
      /header retry-after must be integer/,
    );
  });

  it('checks each line of an NDJSON body against the schema of a line', () => {
    const url = '/v1/lists/ls_1/result';
    const headers = { 'x-request-id': 'r-1', 'content-type': 'application/x-ndjson; charset=utf-8' };
    const row = {
      name: 'Acme',
      enrich_status: 'not_found',
      enrich_matched_by: null,
      enrich_id: null,
      enrich_problem: null,
      enrich_record: null,
    };
    const lines = (...rows: object[]) => Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(check(200, headers, lines(row, row), url)).not.toThrow();
    expect(check(200, headers, lines(row, { ...row, enrich_status: 'lost' }), url)).toThrow(
      /body\/enrich_status must be equal to one of the allowed values/,
    );
  });
});
