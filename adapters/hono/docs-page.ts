import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context, Hono } from 'hono';
import { ServiceError } from '../../src/index.js';
import type { RouterEnv } from './errors.js';
import { createOpenApiDocument } from './openapi.js';

/**
 * `/openapi.json` and a docs page at `/docs` (Swagger UI, served from the `swagger-ui-dist`
 * package: no CDN, works offline). The page and its assets use relative URLs, so they work
 * wherever the router is mounted. "Try it out" is off: the service refuses requests from web
 * pages unless their origin is allowed.
 */

/** The files the page loads, by the name it asks for, with their content type. */
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'init.js': { file: '', type: 'text/javascript; charset=utf-8' },
};

// No inline script: the page works under a strict Content-Security-Policy too.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    supportedSubmitMethods: [],
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conversation model service: API</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<style>body{margin:0} .note{font:14px sans-serif;margin:12px 20px;color:#3b4151}</style>
</head>
<body>
<p class="note">The API of this service (<a href="openapi.json">openapi.json</a>). Requests cannot be sent from this page: the service refuses web pages whose origin it does not allow. Use the official client, curl, or an allowed origin.</p>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

const contents = new Map<string, Promise<string>>();

/** Reads an asset of swagger-ui-dist on first use (the router may be mounted where it is never asked for). */
function asset(name: string): Promise<string> {
  let content = contents.get(name);
  if (content === undefined) {
    const spec = ASSETS[name]!;
    content =
      spec.file === ''
        ? Promise.resolve(INIT_SCRIPT)
        : readFile(join(dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')), spec.file), 'utf8');
    // A failed read (package missing) is retried on the next request rather than remembered.
    content.catch(() => contents.delete(name));
    contents.set(name, content);
  }
  return content;
}

/** The prefix the router is mounted at, from the request's path and the route's own path. */
function mountPrefix(c: Context, ownPath: string): string {
  const path = c.req.path;
  return path.endsWith(ownPath) ? path.slice(0, path.length - ownPath.length) : '';
}

/** Adds `GET /openapi.json`, `GET /docs` and `GET /docs/:asset` to the router. */
export function mountApiDocs(app: Hono<RouterEnv>): void {
  app.get('/openapi.json', (c) => c.json(createOpenApiDocument(mountPrefix(c, '/openapi.json') || '/')));
  app.get('/docs', (c) => c.html(PAGE, 200, { 'Cache-Control': 'no-cache' }));
  app.get('/docs/:asset', async (c) => {
    const name = c.req.param('asset');
    const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (spec === undefined) throw new ServiceError('NOT_FOUND', `No docs asset "${name.slice(0, 80)}".`);
    let body: string;
    try {
      body = await asset(name);
    } catch {
      throw new ServiceError('NOT_FOUND', 'The docs page needs the swagger-ui-dist package, which is not installed.');
    }
    return c.body(body, 200, { 'Content-Type': spec.type, 'Cache-Control': 'public, max-age=3600' });
  });
}
