// What every request Fastify routes passes first: safe headers, no body where none is taken, and on
// keyed routes the per-address limit of requests without a valid token (the lookup path has its own).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../errors.js';
import type { UnauthenticatedLimit } from '../limits/unauthenticated.js';
import { isPromise } from '../store/maybe-promise.js';
import { hasBody, takesNoBody, unwantedBody } from './body.js';

/** A route that needs a token: its OpenAPI operation names a security scheme. */
function isKeyed(request: FastifyRequest): boolean {
  const security = (request.routeOptions.schema as { security?: unknown[] } | undefined)?.security;
  return security !== undefined && security.length > 0;
}

/** Stands for the 401 a route sent itself, when it is charged after the fact. */
const SENT_UNAUTHORIZED = new ProblemError('unauthorized', 'sent by the route');

export function registerGuards(app: FastifyInstance, unauthenticated: UnauthenticatedLimit): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Set on the raw response, so that a route writing its reply itself (a hijacked one) sends them too.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    if (takesNoBody(request.method) && hasBody(request.raw)) {
      return done(unwantedBody(request.raw, request.url.split('?')[0]!));
    }
    if (!isKeyed(request) || request.routeOptions.config.lookup) return done();
    // Whatever a keyed route answers is the key holder's own: no cache keeps it.
    reply.raw.setHeader('cache-control', 'private, no-store');
    const refusal = unauthenticated.refusal(request.raw);
    if (refusal !== undefined) return done(refusal);
    // A 401 thrown to the error handler is charged there, and can become the 429; one a route writes
    // itself (a hijacked reply) is charged once sent, and counts against the address's next requests.
    reply.raw.once('finish', () => {
      if (reply.raw.statusCode !== 401) return;
      const charged = unauthenticated.charge(request.raw, SENT_UNAUTHORIZED);
      if (isPromise(charged)) charged.catch(() => {}); // a limiter that failed: the next 401 tries again
    });
    done();
  });
}
