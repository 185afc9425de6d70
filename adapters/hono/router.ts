import { Hono } from 'hono';
import { type Service, ServiceError } from '../../src/index.js';
import { mountApiDocs } from './docs-page.js';
import { createOnError, type RouterEnv, type RouterLogger } from './errors.js';
import { readPostBody } from './request.js';
import { handlerOf } from './route-handler.js';
import { ROUTES } from './routes.js';
import { STREAM_ROUTES } from './stream-routes.js';
import { mountTransferRoutes, type TransferRouteOptions } from './transfer-routes.js';
import { type WebOriginOptions, webOriginGuards } from './web-origin.js';

export interface HonoRouterOptions extends WebOriginOptions, TransferRouteOptions {
  /** Largest request body accepted, in bytes; larger ones answer 413. Default: 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Where unexpected errors are reported. Default: `console`. */
  readonly logger?: RouterLogger;
  /**
   * Logs one line per request (`GET /models 200 3 ms`) through this function; none by default.
   * Paths only, never query strings or bodies: they can carry conversation text.
   */
  readonly requestLog?: (line: string) => void;
}

/**
 * A Hono app with every route of the service at the API's paths. Mount it with `app.route(prefix,
 * router)` in your own Hono app, or serve it as is. Errors are answered by the router's own
 * `onError`, so they keep their shape when mounted.
 */
export function createHonoRouter(service: Service, options: HonoRouterOptions = {}): Hono<RouterEnv> {
  const app = new Hono<RouterEnv>();
  app.onError(createOnError(options.logger ?? console));
  // Before anything else: who is asking (host, origin, token).
  const requestLog = options.requestLog;
  if (requestLog) {
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      requestLog(`${c.req.method} ${c.req.path} ${c.res.status} ${Math.round(performance.now() - started)} ms`);
    });
  }
  app.use('*', ...webOriginGuards(options));
  // Export and import stream their bodies: mounted before POST bodies are read whole.
  mountTransferRoutes(app, service, options);
  // POST only: reading `c.req.raw.body` on a GET makes @hono/node-server build a full Request,
  // which doubles the cost of a small read.
  app.post('*', readPostBody(options.maxBodyBytes ?? 10 * 1024 * 1024));

  // The OpenAPI document of these routes and its docs page: /openapi.json, /docs, /docs/:asset.
  mountApiDocs(app);
  // Every route of the service, from its one table (which the document is generated from too).
  for (const route of ROUTES) app[route.method](route.path, handlerOf(route, service));
  // The change streams are WebSockets, upgraded by the server (`attachStreams`) before the router
  // sees them: a plain GET of one is told so.
  for (const stream of STREAM_ROUTES) {
    app.get(stream.path, (c) => {
      c.set('statusOverrides', { INVALID_INPUT: 426 });
      c.header('Upgrade', 'websocket');
      throw new ServiceError('INVALID_INPUT', `${stream.path} is a WebSocket: connect with "Upgrade: websocket" (see docs/streams.md).`);
    });
  }

  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `No route for ${c.req.method} ${c.req.path}.` } }, 404));
  return app;
}
