// What every request Fastify routes passes first: safe headers, a 405 for a known path's wrong method, no
// body where none is taken, and on keyed routes (and requests no route takes) the screen of admission (the
// lookup path screens its own). A route that names a security scheme without being declared keyed is refused
// as it is registered: no keyed route can skip admission.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Admission } from './admission.js';
import type { AllowedMethods } from './allowed-methods.js';
import { hasBody, takesNoBody, unwantedBody } from './body.js';

const pathOf = (url: string) => url.split('?')[0]!;

/** A body left unread closes the connection after the answer, rather than be read to its end. */
const closing = (request: FastifyRequest): Record<string, string> =>
  hasBody(request.raw) ? { connection: 'close' } : {};

/**
 * A request no route takes: refused 429 from an address over its limit of refusals, and its 404 (or 415)
 * charged to the address as a 401 is, so that probing for routes costs what guessing tokens does.
 */
function screenUnrouted(
  admission: Admission,
  req: IncomingMessage,
  res: ServerResponse,
  done: (error?: Error) => void,
): void {
  const refusal = admission.screen(req);
  if (refusal !== undefined) {
    done(refusal);
    return;
  }
  admission.chargeWhenSent(req, res, [404, 415]);
  done();
}

export function registerGuards(app: FastifyInstance, admission: Admission, allowed: AllowedMethods): void {
  app.addHook('onRoute', (route) => {
    const security = (route.schema as { security?: unknown[] } | undefined)?.security;
    if (!security?.length || route.config?.keyed || route.config?.lookup) return;
    throw new Error(
      `${route.url} takes a bearer token: declare it with app.keyedRoute (http/keyed-route.ts)`,
    );
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Set on the raw response, so that a route writing its reply itself (a hijacked one) sends them too.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    // A known path asked with the wrong method is a 405, answered before any body is read (or refused).
    const wrongMethod =
      request.is404 && allowed.refusal(request.method, pathOf(request.url), closing(request));
    if (wrongMethod) return done(wrongMethod);
    if (takesNoBody(request.method) && hasBody(request.raw)) {
      return done(unwantedBody(request.raw, pathOf(request.url)));
    }
    if (request.is404) return screenUnrouted(admission, request.raw, reply.raw, done);
    if (request.routeOptions.config.keyed === undefined) return done();
    // Whatever a keyed route answers is the key holder's own: no cache keeps it.
    reply.raw.setHeader('cache-control', 'private, no-store');
    const refusal = admission.screen(request.raw);
    if (refusal !== undefined) return done(refusal);
    // A 401 (or 415) the route answers without turning it into a 429 counts against the address's next
    // requests.
    admission.chargeWhenSent(request.raw, reply.raw);
    done();
  });
}
