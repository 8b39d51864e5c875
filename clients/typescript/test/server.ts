// A real `enrich serve` for the client's tests: a few people and companies, and a key for each case.
import { mkdtempSync } from 'node:fs';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueKey, type KeyRequest } from '../../../src/auth/keys.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';
import { type Server, serve } from '../../../test/cluster/serve.js';
import { COMPANIES, PEOPLE, seed } from '../../../test/helpers/app.js';

/** Seven finance managers at Acme, for the searches: ids fp000000000101 … fp000000000107. */
export const MANAGERS = Array.from({ length: 7 }, (_, i) => ({
  id: `fp00000000010${i + 1}`,
  name: `Manager ${i + 1}`,
  position: 'Finance Manager',
  seniority: 'Manager',
  department: 'Finance',
  current_company: { id: 'f000000000001', name: 'Acme Holdings' },
}));

export interface TestServer {
  url: string;
  server: Server;
  /** Tokens: every scope at a high rate; 1 request a second; a quota of 1; company:read only; admin only. */
  tokens: { full: string; slow: string; quota: string; companyOnly: string; admin: string };
}

/** Fills a SQLite file through the store, as `enrich import` and `enrich keys create` would, then serves it. */
export async function startServer(): Promise<TestServer> {
  const db = join(mkdtempSync(join(tmpdir(), 'enrich-client-')), 'enrich.db');
  const store = openSqliteStore(db);
  let tokens: TestServer['tokens'];
  try {
    await seed(store, 'people', [...PEOPLE, ...MANAGERS]);
    await seed(store, 'companies', COMPANIES);
    const key = async (request: Partial<KeyRequest>) =>
      (await issueKey(store, { name: 'client test', ...request })).token;
    tokens = {
      full: await key({ rate: 1000 }),
      slow: await key({ rate: 1 }),
      quota: await key({ quota: 1 }),
      companyOnly: await key({ scopes: ['company:read'] }),
      admin: await key({ scopes: ['admin'], rate: 1000 }),
    };
  } finally {
    await store.close();
  }
  const server = await serve(['--db', db, '--workers', '1']);
  return { url: server.url, server, tokens };
}

/** A local HTTP server answering each request with the next handler (the last one from then on). */
export async function stubServer(
  handlers: Array<(request: IncomingMessage, response: ServerResponse) => void | Promise<void>>,
): Promise<{ url: string; server: HttpServer; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    const handler = handlers[Math.min(requests++, handlers.length - 1)]!;
    void handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, requests: () => requests };
}

/** Answers `503 unavailable`, as the service does when its store is down, asking for a retry in `seconds`. */
export const unavailable = (seconds: number) => (_request: IncomingMessage, response: ServerResponse) => {
  response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': String(seconds) });
  response.end(
    JSON.stringify({
      type: 'https://enrich.dev/problems/unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: 'The data store is unavailable; retry shortly.',
      code: 'unavailable',
      request_id: 'stub-1',
    }),
  );
};

/** Passes the request on to a real server and its answer back. */
export const proxyTo = (target: string) => async (request: IncomingMessage, response: ServerResponse) => {
  const upstream = await fetch(`${target}${request.url}`, {
    headers: { authorization: request.headers.authorization ?? '' },
  });
  const body = Buffer.from(await upstream.arrayBuffer());
  const headers = Object.fromEntries(
    [...upstream.headers].filter(([name]) => !['content-encoding', 'content-length'].includes(name)),
  );
  response.writeHead(upstream.status, headers);
  response.end(body);
};
