// `enrich lookup --url`: one lookup through a server's POST lookup route (the identifiers in a JSON body, never
// in a URL a proxy logs), its answer kept as served.
import type { LookupOperation } from '../lookup/operations.js';
import type { LookupReply } from './lookup-answer.js';
import { UsageError } from './options.js';

/** How long a lookup may take before it is given up. */
const TIMEOUT_MS = 30_000;

/** The POST lookup of an operation on a server: `https://host/v1/people/lookup`. */
export function lookupUrl(base: string, operation: LookupOperation): URL {
  let url: URL;
  try {
    url = new URL(base.endsWith('/') ? base : `${base}/`);
  } catch {
    throw new UsageError(`--url: not a URL: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url: expected an http or https URL, got ${url.protocol}`);
  return new URL(`v1${operation.path}/lookup`, url);
}

/** Sends the lookup's parameters (single values: a repeated one is refused before) and keeps the answer. */
export async function remoteLookup(
  base: string,
  token: string,
  operation: LookupOperation,
  params: Record<string, string>,
): Promise<LookupReply> {
  const url = lookupUrl(base, operation);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(params),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    throw new UsageError(`${url.origin} cannot be reached: ${cause?.message ?? (error as Error).message}`);
  }
  return {
    status: response.status,
    body: await response.text(),
    matchedBy: response.headers.get('enrich-matched-by') ?? undefined,
    likelihood: response.headers.get('enrich-match-likelihood') ?? undefined,
  };
}
