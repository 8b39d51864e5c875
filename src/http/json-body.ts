// The JSON bodies of the routes Fastify parses (searches): its own parser, once the text is known not to nest
// deeper than any body here needs — code that walks a parsed value recurses, and would exhaust its stack.
import type { FastifyInstance } from 'fastify';
import { nestingProblem } from './json-syntax.js';

/** Replaces Fastify's `application/json` parser with the same parser behind a check of the nesting depth. */
export function registerJsonBodies(app: FastifyInstance): void {
  // Fastify's defaults: a `__proto__` member is refused, a `constructor` one kept.
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const problem = nestingProblem(body as string);
    if (problem) return done(problem, undefined);
    parse(request, body as string, done);
  });
}
