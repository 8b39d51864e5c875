// `enrich changes --url`: pages of a server's feed (GET /v1/changes), its problems said as the CLI says errors.
import type { ChangeEvent } from '../changes/events.js';
import { UsageError } from './options.js';

/** A page as the CLI prints it, from the local store or a server. */
export interface PrintedPage {
  events: ChangeEvent[];
  next: string;
  hasMore: boolean;
}

/** What to read: after a cursor (undefined: the oldest kept), these types, this many, waiting this long. */
export interface PageRequest {
  after: string | undefined;
  types: string | undefined;
  limit: number;
  wait: number;
}

/** Bound on a request beyond its own wait. */
const TIMEOUT_MS = 30_000;

function feedUrl(base: string, request: PageRequest): URL {
  let url: URL;
  try {
    url = new URL('v1/changes', base.endsWith('/') ? base : `${base}/`);
  } catch {
    throw new UsageError(`--url: not a URL: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url: expected an http or https URL, got ${url.protocol}`);
  if (request.after !== undefined) url.searchParams.set('after', request.after);
  if (request.types !== undefined) url.searchParams.set('types', request.types);
  url.searchParams.set('limit', String(request.limit));
  if (request.wait > 0) url.searchParams.set('wait', String(request.wait));
  return url;
}

/** One page of the server's feed; a refusal (401, 403, 410, …) is a UsageError with the problem's detail. */
export async function remotePage(
  base: string,
  token: string,
  request: PageRequest,
  stop: AbortSignal,
): Promise<PrintedPage | undefined> {
  const url = feedUrl(base, request);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.any([stop, AbortSignal.timeout(TIMEOUT_MS + request.wait * 1000)]),
    });
  } catch (error) {
    if (stop.aborted) return undefined;
    const cause = (error as Error & { cause?: Error }).cause;
    throw new UsageError(`${url.origin} cannot be reached: ${cause?.message ?? (error as Error).message}`);
  }
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (response.status !== 200 || body === undefined) {
    const detail = typeof body?.detail === 'string' ? body.detail : 'no problem document';
    throw new UsageError(`${url.origin} answered ${response.status}: ${detail}`);
  }
  const page = body as { data: ChangeEvent[]; next: string; has_more: boolean };
  return { events: page.data, next: page.next, hasMore: page.has_more };
}
