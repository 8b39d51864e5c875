// Request ids: a caller's X-Request-Id when it is safe to echo, else a fresh, cheap, unique one.
const SAFE = /^[A-Za-z0-9._-]{1,64}$/;
const instance = Math.random().toString(36).slice(2, 8);
let sequence = 0;

/** @example requestId(req.headers['x-request-id']) // 'k3j9x2-1a' or the caller's own */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE.test(header)
    ? header
    : `${instance}-${(++sequence).toString(36)}`;
}
