// Watches every inject() of every Fastify instance: light-my-request, which inject() loads on first use, is
// wrapped once per process, and each watcher is told of each request and then of its response.
import { createRequire } from 'node:module';

export interface Injected {
  statusCode: number;
  headers: Record<string, unknown>;
  rawPayload: Buffer;
}

/**
 * Told of a request as it is made (so that requests made together keep their order); what it returns is
 * told of the response, and may throw to fail the request.
 */
export type InjectionWatcher = (method: string, url: string) => ((res: Injected) => void) | undefined;

type Inject = (dispatch: unknown, options?: unknown, callback?: unknown) => unknown;

/** The watchers by name, held once per process however often the setup files that add them are loaded. */
const shared = globalThis as { enrichInjectionWatchers?: Map<string, InjectionWatcher> };

function wrapInject(watchers: Map<string, InjectionWatcher>): void {
  const require = createRequire(import.meta.url);
  const requireFromFastify = createRequire(require.resolve('fastify'));
  const path = requireFromFastify.resolve('light-my-request');
  const inject = requireFromFastify(path) as Inject;
  const watched: Inject = (dispatch, options, callback) => {
    if (options === undefined || callback !== undefined) return inject(dispatch, options, callback);
    const { method = 'GET', url = '' } =
      typeof options === 'string' ? { url: options } : (options as { method?: string; url?: string });
    const told = [...watchers.values()].map((watch) => watch(method.toUpperCase(), url));
    return new Promise((resolve, reject) => {
      inject(dispatch, options, (error: unknown, res: Injected) => {
        if (error) return reject(error);
        try {
          for (const tell of told) tell?.(res);
        } catch (failure) {
          return reject(failure);
        }
        resolve(res);
      });
    });
  };
  require.cache[path]!.exports = Object.assign(watched, inject);
}

/** Adds (or replaces) the watcher of this name. */
export function watchInjections(name: string, watcher: InjectionWatcher): void {
  if (shared.enrichInjectionWatchers === undefined) {
    shared.enrichInjectionWatchers = new Map();
    wrapInject(shared.enrichInjectionWatchers);
  }
  shared.enrichInjectionWatchers.set(name, watcher);
}
