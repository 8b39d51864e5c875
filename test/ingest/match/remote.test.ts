import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rateLimitWait, retryAfterSeconds } from '../../../src/ingest/match/bulk-client.js';
import { remoteResolver } from '../../../src/ingest/match/remote.js';
import { type LookupOperation, PEOPLE_LOOKUP } from '../../../src/lookup/operations.js';

type Answer = (items: Array<{ ref: string; params: Record<string, string> }>, res: ServerResponse) => void;

let close: (() => Promise<void>) | undefined;
afterEach(() => close?.());

/** A bulk API answering each request with the next of `answers`; returns its URL and the bodies received. */
async function serve(...answers: Answer[]) {
  const bodies: unknown[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    bodies.push(body);
    answers[Math.min(bodies.length, answers.length) - 1]!(body.requests, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`, bodies };
}

const results =
  (status: (i: number) => string): Answer =>
  (items, res) => {
    const body = items.map((item, i) =>
      status(i) === 'matched'
        ? { ref: item.ref, status: 'matched', matched_by: ['work_email'], record: { id: `fp${i}` } }
        : { ref: item.ref, status: status(i), problem: { code: status(i) } },
    );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: body }));
  };

const operation = PEOPLE_LOOKUP as LookupOperation;
const row = (email: string) => ({ work_email: email });

describe('matching through a bulk API', () => {
  it('sends the rows that have params, under the base URL, with the selected fields, and maps results back', async () => {
    const api = await serve(results((i) => (i === 0 ? 'matched' : 'ambiguous')));
    const resolver = remoteResolver({ url: api.url, token: 't', operation, fields: ['name'] });
    const outcomes = await resolver.resolve([row('a@b.au'), undefined, row('c@d.au')]);
    expect(api.bodies).toEqual([
      {
        requests: [
          { params: { work_email: 'a@b.au' }, ref: 'row-1' },
          { params: { work_email: 'c@d.au' }, ref: 'row-2' },
        ],
        fields: ['name'],
      },
    ]);
    expect(outcomes).toEqual([
      { status: 'matched', matchedBy: ['work_email'], id: 'fp0', record: { value: { id: 'fp0' } } },
      { status: 'invalid' },
      { status: 'ambiguous' },
    ]);
  });

  it('retries a 503 after its Retry-After, telling why', async () => {
    const unavailable: Answer = (_, res) => res.writeHead(503, { 'retry-after': '0' }).end('{}');
    const api = await serve(
      unavailable,
      results(() => 'not_found'),
    );
    const waits: string[] = [];
    const resolver = remoteResolver({
      url: api.url,
      token: 't',
      operation,
      onWait: (s, why) => waits.push(`${why} ${s}`),
    });
    expect(await resolver.resolve([row('a@b.au')])).toEqual([{ status: 'not_found' }]);
    expect(waits).toEqual(['the server is unavailable 0']);
  });

  it('gives up on a server that stays unavailable', async () => {
    const api = await serve((_, res) =>
      res.writeHead(503, { 'retry-after': '0' }).end('{"title":"Service unavailable"}'),
    );
    const resolver = remoteResolver({ url: api.url, token: 't', operation, retries: 2 });
    await expect(resolver.resolve([row('a@b.au')])).rejects.toThrow(
      'the server stayed unavailable (503) after 3 attempts: Service unavailable',
    );
    expect(api.bodies).toHaveLength(3);
  });

  it('sends nothing more once the quota is used up, writing later rows as quota_exceeded', async () => {
    const api = await serve(results((i) => (i === 0 ? 'matched' : 'quota_exceeded')));
    const resolver = remoteResolver({ url: api.url, token: 't', operation });
    const first = await resolver.resolve([row('a@b.au'), row('c@d.au')]);
    expect(first.map((o) => o.status)).toEqual(['matched', 'quota_exceeded']);
    expect(await resolver.resolve([row('e@f.au'), undefined])).toEqual([
      { status: 'quota_exceeded', problem: "Not sent: the server said this key's monthly quota is used up." },
      { status: 'invalid' },
    ]);
    expect(api.bodies).toHaveLength(1);
  });

  it('refuses results that do not answer the request item for item', async () => {
    const api = await serve((_, res) => res.writeHead(200).end(JSON.stringify({ results: [] })));
    const resolver = remoteResolver({ url: api.url, token: 't', operation });
    await expect(resolver.resolve([row('a@b.au')])).rejects.toThrow(/do not match its items/);
  });

  it('refuses a URL that is not http or https', () => {
    expect(() => remoteResolver({ url: 'ftp://x', token: 't', operation })).toThrow(/http or https/);
    expect(() => remoteResolver({ url: 'not a url', token: 't', operation })).toThrow(/not a URL/);
  });
});

describe('reading a server’s rate-limit headers', () => {
  it('waits the RateLimit reset only when nothing is left', () => {
    expect(rateLimitWait(new Headers({ ratelimit: '"default";r=0;t=3' }))).toBe(3);
    expect(rateLimitWait(new Headers({ ratelimit: '"default";r=5;t=3' }))).toBe(0);
    expect(rateLimitWait(new Headers({ 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }))).toBe(2);
    expect(rateLimitWait(new Headers())).toBe(0);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('7', 1)).toBe(7);
    expect(retryAfterSeconds(null, 1)).toBe(1);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:10 GMT', 1, Date.parse('2026-01-01T00:00:00Z'))).toBe(
      10,
    );
    expect(retryAfterSeconds('soon', 2)).toBe(2);
  });
});
