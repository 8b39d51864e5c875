// One rule for methods: a path the service serves, asked with a method it does not serve there, is a 405
// naming the methods it does (`Allow`), whichever route it is; only a path nothing serves is a 404.
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../errors.js';

/** The order `Allow` lists methods in: the one a path is for first. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Served {
  pattern: RegExp;
  methods: Set<string>;
}

/** A route's URL as a pattern of paths: `:name` is one segment. */
function pattern(url: string): RegExp {
  const escaped = url
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('')}$`);
}

/** The methods each routed path is served with, learnt as routes are declared. */
export class AllowedMethods {
  private readonly served = new Map<string, Served>();

  /** Learns every route declared on `app` from now on (a catch-all `*`, as CORS's preflight, excepted). */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      if (route.url.includes('*')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const served = this.served.get(route.url) ?? { pattern: pattern(route.url), methods: new Set() };
      for (const method of methods) served.methods.add(method);
      if (served.methods.has('GET')) served.methods.add('HEAD');
      this.served.set(route.url, served);
    });
  }

  /** The methods `path` is served with, in `Allow`'s order; empty when nothing serves it. */
  of(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: served } of this.served.values()) {
      if (pattern.test(path)) for (const method of served) methods.add(method);
    }
    return ORDER.filter((method) => methods.has(method));
  }

  /** The 405 for `method` on `path`, or undefined when nothing serves the path (or serves it with `method`). */
  refusal(method: string, path: string, headers: Record<string, string> = {}): ProblemError | undefined {
    const allow = this.of(path);
    if (allow.length === 0 || allow.includes(method)) return undefined;
    return new ProblemError(
      'method_not_allowed',
      `${method} is not allowed here; use ${allow[0]}.`,
      {},
      { allow: allow.join(', '), ...headers },
    );
  }
}
