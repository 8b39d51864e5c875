// One delivery attempt over HTTP: a POST through agents that check the address connected to, no redirect
// followed, 10 s at most, the answer's body read up to 64 KB and kept up to 1 KB.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { DeliveryAttempt } from '../store/webhooks.js';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress, literalAddress } from './addresses.js';

export const ATTEMPT_TIMEOUT_MS = 10_000;
const READ_LIMIT = 64 * 1024;
const KEEP_LIMIT = 1024;

export interface Poster {
  post(url: string, headers: Record<string, string>, body: string): Promise<DeliveryAttempt>;
  close(): void;
}

/**
 * Posts deliveries. With `allowPrivate` (ENRICH_WEBHOOK_ALLOW_PRIVATE=true) any address may be reached.
 * @example const poster = webhookPoster({ allowPrivate: false }); await poster.post(url, headers, body);
 */
export function webhookPoster(opts: { allowPrivate: boolean; timeoutMs?: number }): Poster {
  const agentOptions = {
    keepAlive: true,
    maxSockets: 10,
    ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
  };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return {
    post: (url, headers, body) => attempt(url, headers, body, { http, https, timeoutMs, ...opts }),
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
}

interface Via {
  http: HttpAgent;
  https: HttpsAgent;
  allowPrivate: boolean;
  timeoutMs: number;
}

function attempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  via: Via,
): Promise<DeliveryAttempt> {
  const at = new Date();
  const started = performance.now();
  const ended = (
    status_code: number | null,
    error: string | null,
    response: string | null,
  ): DeliveryAttempt => ({
    at: at.toISOString(),
    status_code,
    duration_ms: Math.round(performance.now() - started),
    error,
    response,
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
      const literal = literalAddress(target.hostname);
      // A name is checked as it resolves (guardedLookup); an address literal is never looked up.
      if (!via.allowPrivate && literal !== undefined && isForbiddenAddress(literal)) {
        throw new ForbiddenAddressError(literal);
      }
    } catch (error) {
      return resolve(ended(null, (error as Error).message, null));
    }
    const secure = target.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const request = send(target, {
      method: 'POST',
      agent: secure ? via.https : via.http,
      headers: {
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'enrich-webhooks/1',
      },
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${via.timeoutMs} ms`)),
      via.timeoutMs,
    );
    let settled = false;
    const settle = (result: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    request.on('error', (error) => settle(ended(null, error.message, null)));
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let read = 0;
      const done = () => {
        const text = Buffer.concat(chunks).subarray(0, KEEP_LIMIT).toString('utf8');
        settle(ended(response.statusCode ?? null, null, text === '' ? null : text));
      };
      response.on('data', (chunk: Buffer) => {
        if (read < READ_LIMIT) chunks.push(chunk.subarray(0, READ_LIMIT - read));
        read += chunk.length;
        if (read >= READ_LIMIT) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', done);
      response.on('close', done);
    });
    request.end(body);
  });
}
