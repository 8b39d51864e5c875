// /console/session: a key's token exchanged for the console's session cookie (POST), who the session is
// (GET), and signing out (DELETE), which ends the session on the server, for every server.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identifyKey, requireLive } from '../auth/authenticate.js';
import {
  type ConsoleSessions,
  clearedSessionCookie,
  requireSameOrigin,
  SESSION_COOKIE,
  sessionCookie,
  sessionIdOf,
} from '../auth/sessions.js';
import { hashToken } from '../auth/tokens.js';
import { ProblemError, toProblem } from '../errors.js';
import type { Admission } from '../http/admission.js';
import { sendProblem } from '../http/problem.js';
import { headers, KEYED, responseRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import type { ApiKey } from '../store/keys.js';
import type { Store } from '../store/store.js';

export interface ConsoleSessionDeps {
  store: Store;
  admission: Admission;
  sessions: ConsoleSessions;
}

/** What the console shows of the signed-in key, and what decides its pages: its scopes. */
const whoami = (key: ApiKey) => ({
  key: { id: key.id, name: key.name, scopes: key.scopes, expires_at: key.expires_at },
});

const SESSION_SCHEMA = {
  type: 'object',
  required: ['key'],
  properties: {
    key: {
      type: 'object',
      required: ['id', 'name', 'scopes', 'expires_at'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string' } },
        expires_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
  },
} as const;

const sessionAnswer = (description: string) => ({
  description,
  headers: headers(...KEYED),
  content: { 'application/json': { schema: SESSION_SCHEMA } },
});

const refusals: Responses = {
  401: responseRef('Unauthorized'),
  429: responseRef('RateLimited'),
  '4XX': responseRef('UnreadableRequest'),
  500: responseRef('InternalError'),
  503: responseRef('Unavailable'),
};

const COOKIE_NOTE = `The cookie (\`${SESSION_COOKIE}\`) is HttpOnly, SameSite=Strict, Secure over HTTPS, and ends after 12 hours unused.`;

/** The token of a sign-in's body, or a 400. */
function tokenOf(body: unknown): string {
  const token = (body as { token?: unknown } | null)?.token;
  if (typeof token !== 'string' || token === '') {
    throw new ProblemError('invalid_body', 'Give the key\'s token as {"token": "enr_…"}.', {
      path: '$.token',
    });
  }
  return token;
}

const secure = (request: FastifyRequest) => request.protocol === 'https';

export function registerConsoleSession(
  app: FastifyInstance,
  { store, admission, sessions }: ConsoleSessionDeps,
) {
  app.post(
    '/console/session',
    {
      schema: {
        operationId: 'openConsoleSession',
        summary: "Sign in to the console: a key's token for a session cookie",
        description: `Needs this server's \`Origin\`. ${COOKIE_NOTE} The token is never kept by the browser.`,
        tags: ['console'],
        // The token is in the body: no header or cookie is asked for.
        security: [],
        body: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
        'x-responses': {
          201: sessionAnswer('Signed in: the Set-Cookie header carries the session'),
          400: responseRef('AdminBadRequest'),
          403: responseRef('AdminForbidden'),
          ...refusals,
        },
      },
      // The body is read by tokenOf, which names what is wrong more clearly than schema validation.
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const screened = admission.screen(request.raw);
        if (screened !== undefined) throw screened;
        requireSameOrigin(request.raw);
        const token = tokenOf(request.body);
        const match = await identifyKey(store, `Bearer ${token}`);
        requireLive(match);
        const id = await sessions.open(match.key.id, hashToken(token));
        reply.header('set-cookie', sessionCookie(id, secure(request)));
        reply.header('cache-control', 'no-store');
        return reply.code(201).send(whoami(match.key));
      } catch (error) {
        const problem = await admission.turn(request.raw, toProblem(error));
        return sendProblem(request, reply, problem);
      }
    },
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/console/session',
      scopes: [],
      schema: {
        operationId: 'getConsoleSession',
        summary: 'The key the console is signed in as, and its scopes',
        description: `${COOKIE_NOTE} Each answer sets the cookie again, so that its 12 hours count from now.`,
        tags: ['console'],
        'x-responses': { 200: sessionAnswer('The signed-in key'), ...refusals },
      },
    },
    async (request, reply, { key }) => {
      const id =
        request.headers.authorization === undefined ? sessionIdOf(request.headers.cookie) : undefined;
      if (id !== undefined) reply.header('set-cookie', sessionCookie(id, secure(request)));
      return whoami(key);
    },
  );

  app.keyedRoute(
    {
      method: 'DELETE',
      url: '/console/session',
      scopes: [],
      schema: {
        operationId: 'closeConsoleSession',
        summary: 'Sign out: ends the session on the server and clears its cookie',
        tags: ['console'],
        'x-responses': {
          204: { description: 'Signed out', headers: headers(...KEYED) },
          403: responseRef('AdminForbidden'),
          ...refusals,
        },
      },
    },
    async (request, reply) => {
      const id = sessionIdOf(request.headers.cookie);
      if (id !== undefined) await sessions.close(id);
      reply.header('set-cookie', clearedSessionCookie(secure(request)));
      return reply.code(204).send();
    },
  );
}
