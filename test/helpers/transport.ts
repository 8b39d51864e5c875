// How a test reaches the app: inject(), through Fastify's router, or a real socket to the app listening as
// `enrich serve` has it, where lookups enter by LookupPath.serve (its own URL splitting and query parsing).
import { type IncomingHttpHeaders, request } from 'node:http';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { checkResponse } from '../openapi/conformance.js';
import { recorder } from '../recording/record.js';
import { BACKENDS } from './app.js';

export type Over = 'inject' | 'socket';

/**
 * Each backend through inject() and over a socket, for the suites of lookups' edge cases, as
 * `[label, backend, over]`: the label names the first as the suites always did (`sqlite`), the second with
 * `, over a socket`.
 */
export const SETUPS = BACKENDS.flatMap((backend) =>
  (['inject', 'socket'] as const).map(
    (over) => [over === 'inject' ? backend : `${backend}, over a socket`, backend, over] as const,
  ),
);

export interface SendOptions {
  method?: InjectOptions['method'];
  /** Sent as it is, never re-encoded: the malformed URLs of the edge cases stay malformed. */
  url: string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as it is; an object as JSON (with its content type, as inject() does). */
  payload?: string | Buffer | object;
}

/** What a test reads of a response, as inject() gives it. */
export interface Sent {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  rawPayload: Buffer;
  json: LightMyRequestResponse['json'];
}

export type Send = (options: SendOptions) => Promise<Sent>;

/** A sender over `over`; a socket's app is listening on an ephemeral port of 127.0.0.1 once it resolves. */
export async function sender(app: FastifyInstance, over: Over): Promise<Send> {
  if (over === 'inject') return (options) => app.inject(options) as unknown as Promise<Sent>;
  const origin = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  return (options) => overSocket(origin, options);
}

function overSocket(origin: URL, { method = 'GET', url, headers = {}, payload }: SendOptions): Promise<Sent> {
  const json = payload !== undefined && typeof payload === 'object' && !Buffer.isBuffer(payload);
  const body = json ? JSON.stringify(payload) : payload;
  const contentType: Record<string, string> = json ? { 'content-type': 'application/json' } : {};
  const record = recorder(method, url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: origin.hostname,
      port: origin.port,
      method,
      path: url,
      headers: { ...contentType, ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const received = Buffer.concat(chunks);
        record?.(res.statusCode!, res.headers, received);
        // Checked against the document as inject()'s responses are (test/openapi/check-responses.ts).
        try {
          checkResponse(method, url, res.statusCode!, res.headers, received);
        } catch (failure) {
          return reject(failure);
        }
        const text = received.toString('utf8');
        resolve({
          statusCode: res.statusCode!,
          headers: res.headers,
          body: text,
          rawPayload: received,
          json: () => JSON.parse(text),
        });
      });
    });
    req.end(body);
  });
}
