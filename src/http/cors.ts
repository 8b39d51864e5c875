// CORS for browser callers: one policy from ENRICH_CORS_ORIGINS, applied by @fastify/cors to Fastify's
// routes and, as precomputed headers, by the lookup path that answers before Fastify's router.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Which origins may call from a browser: each `scheme://host[:port]`, or `*` for every one. */
export type CorsOrigins = readonly string[];

/** Request headers a browser may send across origins. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, If-None-Match, X-Request-Id';
/** Response headers browser code may read (besides the CORS-safelisted ones). */
const EXPOSED_HEADERS =
  'ETag, Enrich-Matched-By, Enrich-Quota-Remaining, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id';
/** GET and HEAD are the lookups; POST is there for operations that take a body (bulk, search). */
const METHODS = 'GET, HEAD, POST';
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/** The CORS setting, as @fastify/cors and the lookup path both apply it. */
export interface CorsPolicy {
  /** The allowed origins, or `*`. */
  readonly origins: '*' | readonly string[];
  /**
   * The CORS headers of an actual (not preflight) response to `origin`, as a flat [name, value, …] list:
   * computed once per configured origin, never per request.
   */
  headersFor(origin: string | undefined): readonly string[];
}

export function corsPolicy(listed: CorsOrigins): CorsPolicy {
  const expose = ['access-control-expose-headers', EXPOSED_HEADERS];
  if (listed.includes('*')) {
    const any = Object.freeze(['access-control-allow-origin', '*', ...expose]);
    return { origins: '*', headersFor: () => any };
  }
  const origins = [...new Set(listed)];
  // The answer depends on Origin, so caches must keep one per Origin, allowed or not.
  const refused = Object.freeze(['vary', 'Origin']);
  const allowed = new Map(
    origins.map((origin) => [
      origin,
      Object.freeze(['access-control-allow-origin', origin, ...expose, 'vary', 'Origin']),
    ]),
  );
  return { origins, headersFor: (origin) => (origin && allowed.get(origin)) || refused };
}

/**
 * Answers preflights (OPTIONS with Access-Control-Request-Method: 204 with the allowed methods and
 * headers) and adds the allow-origin and expose headers to every response of Fastify's routes. An OPTIONS
 * that is not a preflight goes on to its route, as without CORS (a lookup path's 405).
 */
export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  const actual: FastifyCorsOptions = {
    origin: policy.origins === '*' ? '*' : [...policy.origins],
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    preflight: false,
  };
  const preflight: FastifyCorsOptions = { ...actual, preflight: true };
  const isPreflight = (request: FastifyRequest) =>
    request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
  await app.register(cors, {
    delegator: (request, callback) => callback(null, isPreflight(request) ? preflight : actual),
  });
}
