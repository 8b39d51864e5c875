// Bounded retries: after 429 (Retry-After, else the RateLimit header's reset) and 503 (Retry-After), and after a
// network failure of an idempotent request; never after any other status (a 402 quota_exceeded least of all).
import { retryAfterSeconds } from './errors.js';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** The call's deadline (ms since the epoch): a retry that would wait past it is not made. */
  deadline: number;
  fetch: (request: Request) => Promise<Response>;
}

/** Exponential, with jitter so that clients refused together do not come back together. */
export const backoffMs = (attempt: number) => Math.min(4000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);

/**
 * Seconds until the key's bucket is full again, when the `RateLimit` header says no request is left.
 * @example rateLimitResetSeconds(new Headers({ ratelimit: '"default";r=0;t=1' })) // 1
 */
export function rateLimitResetSeconds(headers: Headers): number | undefined {
  const [, ...params] = (headers.get('ratelimit') ?? '').split(';');
  const values = Object.fromEntries(params.map((param) => param.trim().split('=')));
  return values.r === '0' && /^\d+$/.test(values.t ?? '') ? Number(values.t) : undefined;
}

/** How long to wait before retrying after this response (ms), or undefined when it is not to be retried. */
export function retryDelayMs(response: Response, attempt: number): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const seconds =
    retryAfterSeconds(response.headers) ??
    (response.status === 429 ? rateLimitResetSeconds(response.headers) : undefined);
  return seconds === undefined ? backoffMs(attempt) : seconds * 1000;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Sends the request, again after a retryable answer while retries and time are left; the last answer wins. */
export async function fetchWithRetries(request: Request, policy: RetryPolicy): Promise<Response> {
  const idempotent = request.method === 'GET' || request.method === 'HEAD';
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= policy.retries;
    let delay: number | undefined;
    try {
      // A clone for every attempt but the last: a body can be read only once.
      const response = await policy.fetch(last ? request : request.clone());
      delay = last ? undefined : retryDelayMs(response, attempt);
      if (delay === undefined || Date.now() + delay > policy.deadline) return response;
      await response.body?.cancel();
    } catch (error) {
      if (last || !idempotent || request.signal.aborted) throw error;
      delay = backoffMs(attempt);
      if (Date.now() + delay > policy.deadline) throw error;
    }
    await sleep(delay, request.signal);
  }
}
