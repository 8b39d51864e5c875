// What Node and Fastify answer on their own, before any route (headers too large, a malformed request line, a
// path segment too long, headers too slow), over a real socket: problem+json, with a request id and nosniff.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` on a fresh connection as it is, and parses what the server writes before closing. */
function raw(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

function expectProblem(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  const problem = JSON.parse(res.body);
  expect(problem).toMatchObject({ status, code, request_id: res.headers['x-request-id'] });
  expect(problem.type).toMatch(/^https:\/\/enrich\.dev\/problems\//);
}

describe("the HTTP layer's own answers", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await testApp('sqlite', {
      server: { headersTimeout: 300, requestTimeout: 0, connectionsCheckingInterval: 50 },
    });
    port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  afterAll(() => t.close());

  it('answers headers over 16 KiB with a 431 problem', async () => {
    const padding = 'a'.repeat(20_000);
    const res = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${padding}\r\n\r\n`);
    expectProblem(res, 431, 'headers_too_large');
  });

  it('answers a malformed request line with a 400 problem', async () => {
    const res = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
    expectProblem(res, 400, 'malformed_request');
  });

  it('answers a path segment too long for the router with a 414 problem', async () => {
    const res = await raw(
      port,
      `GET /docs/${'a'.repeat(3000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expectProblem(res, 414, 'uri_too_long');
  });

  it('answers headers that do not arrive in time with a 408 problem', async () => {
    const res = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    expectProblem(res, 408, 'request_timeout');
  });

  it('never quotes the request it refuses', async () => {
    const res = await raw(
      port,
      `GET /people?work_email=secret@example.com HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.body).not.toContain('secret');
  });
});
