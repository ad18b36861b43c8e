import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where the console is served; its build (console/vite.config.ts) uses the same base. */
export const CONSOLE_PATH = '/console/';

/** A year: the hashed assets never change under their name. */
const ASSET_MAX_AGE_SECONDS = 365 * 24 * 3600;

/** The server's icon (the console's, the share-link viewer's): a browser asks for one with every page. */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1677ff"/>' +
  '<text x="16" y="22" font-size="18" text-anchor="middle" fill="white" font-family="sans-serif">R</text></svg>';
/** A day: the icon may change with a release. */
const FAVICON_MAX_AGE_SECONDS = 24 * 3600;

const MISSING_PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Rapport console not built</title></head>
<body>
<h1>The web console has not been built</h1>
<p>This server has no console files to serve. In the checkout, run <code>npm run build</code>
(<code>npm ci</code> runs it too), then reload this page. The API works meanwhile: its reference is at <a href="/docs">/docs</a>.</p>
<p>控制台尚未构建：请在代码目录中运行 <code>npm run build</code>，然后刷新本页。</p>
</body>
</html>
`;

/**
 * The web console (console/, built by Vite into CONSOLE_DIR) on the API's own origin, so it signs in
 * with a same-origin cookie and needs no CORS:
 *
 * - `/` redirects to `/console/`; `/favicon.svg` and `/favicon.ico` are the server's icon;
 * - `/console/assets/*`: the hashed bundles, cached for a year as `immutable`, sent brotli- or
 *   gzip-encoded when the browser accepts it (the build writes `.br` and `.gz` beside each file,
 *   console/vite.config.ts), with `Vary: Accept-Encoding`;
 * - `/console` and any other path below it: `index.html`, `no-cache`, so a deep link opens the page
 *   (the console's router takes it from there) and a new build is picked up at the next load; its
 *   build's brotli or gzip copy too (`index.html.br`, `.gz`) to a browser that accepts it.
 *
 * Without a build the server still starts: it logs a warning and `/console` answers a page saying
 * how to build it. None of it counts against rate limits (static files, no data), and none of it is
 * in the OpenAPI document.
 */
/** The build's compressed copy a browser takes, by its Accept-Encoding: brotli, else gzip; none for `q=0` or neither named. */
export function compressedCopy(acceptEncoding: string | undefined): { encoding: 'br' | 'gzip'; suffix: '.br' | '.gz' } | undefined {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name !== '' && (q === undefined || Number(q.slice(2)) > 0)) accepted.add(name);
  }
  if (accepted.has('br')) return { encoding: 'br', suffix: '.br' };
  if (accepted.has('gzip')) return { encoding: 'gzip', suffix: '.gz' };
  return undefined;
}

export async function registerConsole(app: FastifyInstance, dir: string, log: FastifyBaseLogger): Promise<void> {
  const indexFile = path.join(dir, 'index.html');
  const built = fs.existsSync(indexFile);
  if (!built) log.warn({ consoleDir: dir }, 'the web console is not built (run `npm run build`); /console answers how to build it');

  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none', limitBy: 'none' };
      route.schema = { ...route.schema, hide: true };
    });

    scope.get('/', async (_request, reply) => reply.redirect(CONSOLE_PATH, 302));
    // The icon every page of the server names (the viewer's pages link it); /favicon.ico, which a
    // browser asks for on its own, is the same picture.
    const favicon = async (_request: unknown, reply: FastifyReply) =>
      reply.header('cache-control', `public, max-age=${FAVICON_MAX_AGE_SECONDS}`).type('image/svg+xml').send(FAVICON_SVG);
    scope.get('/favicon.svg', favicon);
    scope.get('/favicon.ico', favicon);

    const page = async (request: FastifyRequest, reply: FastifyReply) => {
      // Read on every request (a few kilobytes): a rebuild is served without a restart.
      const html = await fs.promises.readFile(indexFile).catch(() => null);
      if (html === null) return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(MISSING_PAGE);
      void reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
      const copy = compressedCopy(request.headers['accept-encoding']);
      const compressed = copy && (await fs.promises.readFile(indexFile + copy.suffix).catch(() => null));
      return copy && compressed ? reply.header('content-encoding', copy.encoding).send(compressed) : reply.send(html);
    };
    scope.get('/console', page);
    scope.get('/console/*', page);

    const assets = path.join(dir, 'assets');
    if (built && fs.existsSync(assets)) {
      // A missing asset is the 404 page, never index.html: a stale page must fail to load a chunk
      // visibly (the console offers a reload) rather than run HTML as a script.
      await scope.register(fastifyStatic, {
        root: assets,
        prefix: `${CONSOLE_PATH}assets/`,
        decorateReply: false,
        index: false,
        immutable: true,
        maxAge: ASSET_MAX_AGE_SECONDS * 1000,
        serveDotFiles: false,
        preCompressed: true,
        // A shared cache keeps one copy per encoding.
        setHeaders: (res) => {
          void res.setHeader('vary', 'accept-encoding');
        },
      });
    }
  });
}
