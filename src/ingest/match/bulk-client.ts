// Sends chunks of lookups to a server's bulk API, as its limits allow: waiting out a 429's Retry-After and a
// RateLimit header showing none left, retrying a 503 or a lost connection a few times, failing on a refusal.
import type { LookupOperation } from '../../lookup/operations.js';
import { ListError } from './list.js';

/** One item of a bulk request, and its result as the bulk API answers it (in request order). */
export interface BulkItem {
  params: Record<string, string>;
  ref: string;
}
export interface BulkResult {
  ref: string;
  status: string;
  matched_by?: string[];
  match_likelihood?: number;
  record?: Record<string, unknown>;
  problem?: { title?: string; detail?: string; code?: string };
}

export interface BulkClientOptions {
  /** The server's base URL, e.g. https://enrich.example.com. */
  url: string;
  token: string;
  operation: LookupOperation;
  /** Selected fields, sent as the request's `fields`. */
  fields?: readonly string[] | undefined;
  /** Told of each wait the server asked for (429, 503), in seconds. */
  onWait?: (seconds: number, why: string) => void;
  /** Retries of a 503 or a failed connection before giving up. Default 5. */
  retries?: number;
  /** Milliseconds before a request is given up and retried. Default 120,000. */
  timeoutMs?: number;
}

/** Resends of one chunk answered 429 before giving up: a server that never lets a chunk through is broken. */
const MAX_RATE_LIMITED = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds a `Retry-After` asks for (delay in seconds, or an HTTP date); `fallback` when absent or unreadable. */
export function retryAfterSeconds(header: string | null, fallback: number, now = Date.now()): number {
  if (header === null || header.trim() === '') return fallback;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? fallback : Math.max(0, (date - now) / 1000);
}

/**
 * Seconds to wait before the next request by the rate-limit headers: `t` of `RateLimit: "default";r=0;t=2`
 * (or `RateLimit-Reset` beside `RateLimit-Remaining: 0`, the draft's older form) when nothing is left; else 0.
 */
export function rateLimitWait(headers: Headers): number {
  const structured = headers.get('ratelimit');
  if (structured !== null) {
    const left = /(?:^|;)\s*r=(\d+)/.exec(structured);
    const reset = /(?:^|;)\s*t=(\d+)/.exec(structured);
    return left && Number(left[1]) === 0 && reset ? Number(reset[1]) : 0;
  }
  const remaining = headers.get('ratelimit-remaining');
  const reset = headers.get('ratelimit-reset');
  return remaining !== null && Number(remaining) === 0 && reset !== null && /^\d+$/.test(reset)
    ? Number(reset)
    : 0;
}

async function problemText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const problem = JSON.parse(text) as { title?: string; detail?: string };
    return [problem.title, problem.detail].filter(Boolean).join(': ');
  } catch {
    return text.slice(0, 200);
  }
}

export class BulkClient {
  private readonly endpoint: URL;
  /** No request leaves before this time (ms): the server's rate limit, shared by every chunk in flight. */
  private notBefore = 0;

  constructor(private readonly options: BulkClientOptions) {
    let base: URL;
    try {
      base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    } catch {
      throw new ListError(`--url: not a URL: ${JSON.stringify(options.url)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new ListError(`--url: expected an http or https URL, got ${base.protocol}`);
    this.endpoint = new URL(`v1${options.operation.path}/bulk`, base);
  }

  /** The chunk's results, in request order; a ListError when the server refuses it. */
  async send(items: readonly BulkItem[]): Promise<BulkResult[]> {
    const body = JSON.stringify(
      this.options.fields ? { requests: items, fields: this.options.fields } : { requests: items },
    );
    let failures = 0;
    let limited = 0;
    for (;;) {
      const wait = this.notBefore - Date.now();
      if (wait > 0) await sleep(wait);
      let response: Response;
      try {
        response = await this.post(body);
      } catch (error) {
        if (++failures > (this.options.retries ?? 5))
          throw new ListError(`${this.endpoint.origin} cannot be reached: ${(error as Error).message}`);
        await this.pause(2 ** (failures - 1), `${(error as Error).message}; retrying`);
        continue;
      }
      const paced = rateLimitWait(response.headers);
      if (paced > 0) this.notBefore = Math.max(this.notBefore, Date.now() + paced * 1000);
      if (response.status === 200) return this.results(response, items);
      if (response.status === 429 && ++limited <= MAX_RATE_LIMITED) {
        await response.body?.cancel();
        await this.pause(
          retryAfterSeconds(response.headers.get('retry-after'), 1),
          'rate limited by the server',
        );
        continue;
      }
      if (response.status === 503 && ++failures <= (this.options.retries ?? 5)) {
        await response.body?.cancel();
        await this.pause(
          retryAfterSeconds(response.headers.get('retry-after'), 2 ** (failures - 1)),
          'the server is unavailable',
        );
        continue;
      }
      const why = await problemText(response);
      if (response.status === 503)
        throw new ListError(`the server stayed unavailable (503) after ${failures} attempts: ${why}`);
      throw new ListError(`the server refused the list (${response.status}): ${why}`);
    }
  }

  private post(body: string): Promise<Response> {
    return fetch(this.endpoint, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.options.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
    });
  }

  /** Waits `seconds` (and makes every chunk in flight wait with it), telling the caller why. */
  private async pause(seconds: number, why: string): Promise<void> {
    this.options.onWait?.(seconds, why);
    this.notBefore = Math.max(this.notBefore, Date.now() + seconds * 1000);
    await sleep(this.notBefore - Date.now());
  }

  private async results(response: Response, items: readonly BulkItem[]): Promise<BulkResult[]> {
    const answer = (await response.json().catch(() => undefined)) as { results?: BulkResult[] } | undefined;
    const results = answer?.results;
    if (
      !Array.isArray(results) ||
      results.length !== items.length ||
      results.some((r, i) => r?.ref !== items[i]!.ref)
    )
      throw new ListError('the server answered the bulk request with results that do not match its items');
    return results;
  }
}
