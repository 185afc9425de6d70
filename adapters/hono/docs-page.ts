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
 *
 * `swagger-ui-dist` is an optional dependency (`npm install --omit=optional` leaves it out): without
 * it `/openapi.json` works as ever, and `/docs` answers 501 with a page that says how to install it.
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
    // Sections closed: 182 operations rendered at once stopped after the first 32.
    docExpansion: 'none',
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

/** What `/docs` and its assets say when `swagger-ui-dist` is not installed. */
const DOCS_ASSETS_MISSING =
  'The docs page needs the swagger-ui-dist package, an optional dependency of conversation-model-service ' +
  'that is not installed here (npm install --omit=optional leaves it out). Install it with ' +
  '`npm install swagger-ui-dist` (no restart needed). The API document, openapi.json, works without it.';

const MISSING_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Conversation model service: API</title>
</head>
<body>
<p>${DOCS_ASSETS_MISSING.replace('`npm install swagger-ui-dist`', '<code>npm install swagger-ui-dist</code>').replace('openapi.json,', '<a href="openapi.json">openapi.json</a>,')}</p>
</body>
</html>
`;

/** True for the errors that mean the package (or a file of it) is not there. */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ENOENT';
}

/**
 * The folder of `swagger-ui-dist`, or undefined when it is not installed. Looked up on each call
 * (a cheap, cached resolution once found), so installing it while the service runs is enough.
 */
function swaggerUiFolder(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

const contents = new Map<string, Promise<string>>();

/**
 * Reads an asset of swagger-ui-dist on first use (the router may be mounted where it is never
 * asked for); undefined when the package is not installed.
 */
async function asset(name: string): Promise<string | undefined> {
  let content = contents.get(name);
  if (content === undefined) {
    const spec = ASSETS[name]!;
    if (spec.file === '') {
      content = Promise.resolve(INIT_SCRIPT);
    } else {
      const folder = swaggerUiFolder();
      if (folder === undefined) return undefined;
      content = readFile(join(folder, spec.file), 'utf8');
    }
    // A failed read is retried on the next request rather than remembered.
    content.catch(() => contents.delete(name));
    contents.set(name, content);
  }
  try {
    return await content;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** 501 Not Implemented: this install has no docs page (`swagger-ui-dist` is missing). */
function assetsMissing(c: Context, page: boolean): Response {
  return page
    ? c.html(MISSING_PAGE, 501, { 'Cache-Control': 'no-store' })
    : c.json({ error: { code: 'NOT_IMPLEMENTED', message: DOCS_ASSETS_MISSING } }, 501, { 'Cache-Control': 'no-store' });
}

/** The prefix the router is mounted at, from the request's path and the route's own path. */
function mountPrefix(c: Context, ownPath: string): string {
  const path = c.req.path;
  return path.endsWith(ownPath) ? path.slice(0, path.length - ownPath.length) : '';
}

/** Adds `GET /openapi.json`, `GET /docs` and `GET /docs/:asset` to the router. */
export function mountApiDocs(app: Hono<RouterEnv>): void {
  app.get('/openapi.json', (c) => c.json(createOpenApiDocument(mountPrefix(c, '/openapi.json') || '/')));
  app.get('/docs', (c) => (swaggerUiFolder() === undefined ? assetsMissing(c, true) : c.html(PAGE, 200, { 'Cache-Control': 'no-cache' })));
  app.get('/docs/:asset', async (c) => {
    const name = c.req.param('asset');
    const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (spec === undefined) throw new ServiceError('NOT_FOUND', `No docs asset "${name.slice(0, 80)}".`);
    const body = await asset(name);
    if (body === undefined) return assetsMissing(c, false);
    return c.body(body, 200, { 'Content-Type': spec.type, 'Cache-Control': 'public, max-age=3600' });
  });
}
