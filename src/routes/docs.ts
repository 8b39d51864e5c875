// GET /docs: the operator's API reference page — the service's name, Scalar's renderer served from here,
// no request to any other host, examples that name this server.
import '@fastify/swagger';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { StaticAsset } from '../http/static-asset.js';

/**
 * Scalar's settings. Every feature that talks to a host of Scalar's is off: its fonts (the system's are
 * used), the developer toolbar (Deploy, Share: uploads the document), the AI agent, the "open in API
 * client" button, telemetry, and the request proxy (the "Test Request" client calls this server itself).
 */
const SCALAR_CONFIGURATION = {
  url: 'openapi.json', // relative to /docs, so that the page also works under a reverse proxy's prefix
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  hideClientButton: true,
  telemetry: false,
  proxyUrl: '',
};

/**
 * Starts the renderer. The examples' server is the address this page was loaded from, less `docs`:
 * the origin the visitor used (and its path prefix behind a proxy), so a copied curl line works as
 * pasted. Read by the browser, it needs no Host header from the server, and so nothing to escape.
 */
const START = `const configuration = ${JSON.stringify(SCALAR_CONFIGURATION).replaceAll('<', '\\u003c')};
configuration.servers = [{ url: new URL('.', location.href).href.replace(/\\/$/, ''), description: 'This server' }];
Scalar.createApiReference('#app', configuration);`;

/** Only this origin, for everything: a request elsewhere would be a bug, and the browser refuses it. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${createHash('sha256').update(START).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'", // the renderer sets styles at run time
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function pageHtml(title: string, script: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="docs/${script}"></script>
    <script>${START}</script>
  </body>
</html>
`;
}

/** Scalar's standalone bundle, as the pinned @scalar/fastify-api-reference ships it. */
function bundlePath(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/fastify-api-reference');
  return join(dirname(entry), 'js', 'standalone.js');
}

interface DocsPage {
  html: StaticAsset;
  bundle: StaticAsset;
  /** The bundle's file name under /docs/: content-hashed, so cached for a year and never stale. */
  bundleFile: string;
}

async function loadDocsPage(title: string): Promise<DocsPage> {
  const bundle = new StaticAsset(await readFile(bundlePath()), {
    contentType: 'application/javascript; charset=utf-8',
    cacheControl: 'public, max-age=31536000, immutable',
  });
  const bundleFile = `scalar.${bundle.hash}.js`;
  const html = new StaticAsset(Buffer.from(pageHtml(title, bundleFile)), {
    contentType: 'text/html; charset=utf-8',
    // Revalidated on each visit: it names the bundle, which changes with an upgrade.
    cacheControl: 'no-cache',
    headers: { 'content-security-policy': CONTENT_SECURITY_POLICY }, // nosniff: on every response (http/guard.ts)
  });
  return { html, bundle, bundleFile };
}

/** Registers /docs (the page), /docs/ (a redirect to it) and /docs/scalar.<hash>.js (the renderer). */
export function registerDocs(app: FastifyInstance): void {
  // Read on the first visit, not at start: a server whose reference nobody opens never holds it.
  let page: Promise<DocsPage> | undefined;
  const load = () => {
    if (page === undefined) {
      page = loadDocsPage(`${app.swagger().info.title} API reference`);
      page.catch(() => {
        page = undefined; // the next visit tries again
      });
    }
    return page;
  };
  const hidden = { schema: { hide: true } };

  app.get('/docs', hidden, async (request, reply) => (await load()).html.reply(request, reply));
  app.get('/docs/', hidden, (_request, reply) => reply.redirect('../docs', 301));
  app.get<{ Params: { file: string } }>('/docs/:file', hidden, async (request, reply) => {
    const { bundle, bundleFile } = await load();
    if (request.params.file !== bundleFile) return reply.callNotFound();
    return bundle.reply(request, reply);
  });
}
