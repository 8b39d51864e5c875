// GET /console: the browser console (console/ at the repository's root, compiled by `npm run build`), served
// from memory with a policy that lets the page load and call nothing but this server.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../errors.js';
import { StaticAsset } from '../http/static-asset.js';

/** Only this origin, and no inline script or style: what the page runs is the files below. */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The console's source and build, beside src/ and dist/ alike (both two levels below the root). */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Every file the page may ask for, by its path under /console/: the static files and the compiled scripts. */
async function loadConsole(): Promise<Map<string, StaticAsset>> {
  const assets = new Map<string, StaticAsset>();
  for (const dir of ['public', 'dist']) {
    const root = join(CONSOLE_DIR, dir);
    for (const file of await filesUnder(root)) {
      const type = TYPES[extname(file)];
      if (type === undefined) continue; // source maps and declarations stay on disk
      assets.set(
        relative(root, file).split('\\').join('/'),
        new StaticAsset(await readFile(file), {
          contentType: type,
          // Revalidated on each visit (a 304 when unchanged): names are not content-hashed.
          cacheControl: 'no-cache',
          headers: {
            'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
            'referrer-policy': 'no-referrer',
          },
        }),
      );
    }
  }
  if (!assets.has('main.js')) throw new Error('the console is not built');
  return assets;
}

/** Registers /console (a redirect), /console/ (the page) and /console/<file> (its scripts and style). */
export function registerConsole(app: FastifyInstance): void {
  // Read on the first visit: a server whose console nobody opens never holds it.
  let loaded: Promise<Map<string, StaticAsset>> | undefined;
  const load = () => {
    if (loaded === undefined) {
      loaded = loadConsole();
      loaded.catch(() => {
        loaded = undefined; // built later: the next visit tries again
      });
    }
    return loaded;
  };
  const assets = async () => {
    try {
      return await load();
    } catch {
      throw new ProblemError('unavailable', 'The console is not built: run `npm run build`.');
    }
  };
  const hidden = { schema: { hide: true } };
  app.get('/console', hidden, (_request, reply) => reply.redirect('/console/', 308));
  app.get('/console/', hidden, async (request, reply) =>
    (await assets()).get('index.html')!.reply(request, reply),
  );
  app.get<{ Params: { '*': string } }>('/console/*', hidden, async (request, reply) => {
    const asset = (await assets()).get(request.params['*']);
    if (asset === undefined) return reply.callNotFound();
    return asset.reply(request, reply);
  });
}
