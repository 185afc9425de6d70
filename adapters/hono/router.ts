import { type Context, Hono } from 'hono';
import { LINK_KINDS, type LinkKind, type ListOf, SERVICE_VERSION, type Service } from '../../src/index.js';
import { mountApiDocs } from './docs-page.js';
import { createOnError, type RouterEnv, type RouterLogger } from './errors.js';
import { jsonAnswer, jsonTextAnswer } from './json-answer.js';
import { param, readJsonBody, readListOptions, readPostBody, readTransferables } from './request.js';
import { LINK_ROUTES, RECORD_ROUTES } from './routes.js';
import { type WebOriginOptions, webOriginGuards } from './web-origin.js';

export interface HonoRouterOptions extends WebOriginOptions {
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

const noContent = (c: Context) => c.body(null, 204);

/**
 * A page of a list: the body as the service answers it, and, when there is more, a `Link` header
 * to the next page (RFC 8288), which clients that only parse the body's known fields can still read.
 */
function page(c: Context, list: ListOf<unknown>): Response {
  if (list.next !== undefined) {
    const url = new URL(c.req.url);
    url.searchParams.set('offset', String(list.next));
    c.header('Link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return jsonAnswer(c, list);
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
  // POST only: reading `c.req.raw.body` on a GET makes @hono/node-server build a full Request,
  // which doubles the cost of a small read.
  app.post('*', readPostBody(options.maxBodyBytes ?? 10 * 1024 * 1024));

  // What the official client's WellKnownApi asks: is it up, and which release.
  app.get('/.well-known/health', (c) => c.text('ok'));
  app.get('/.well-known/version', (c) => c.text(SERVICE_VERSION));
  // The OpenAPI document of these routes and its docs page: /openapi.json, /docs, /docs/:asset.
  mountApiDocs(app);

  // Conversations
  app.post('/conversations/create', async (c) => jsonAnswer(c, await service.createConversation(readJsonBody(c), readTransferables(c))));
  app.get('/conversations', async (c) => page(c, await service.listConversations(readListOptions(c))));
  app.post('/conversations/:conversation/delete', async (c) => {
    await service.deleteConversation(param(c, 'conversation'));
    return noContent(c);
  });
  app.post('/conversation/update', async (c) => jsonAnswer(c, await service.updateConversation(readJsonBody(c), readTransferables(c))));
  app.get('/conversation/:conversation', async (c) => {
    // The spec declares 410 for an unknown conversation on this route alone.
    c.set('statusOverrides', { NOT_FOUND: 410 });
    return jsonTextAnswer(c, await service.getConversationJsonPieces(param(c, 'conversation'), readTransferables(c)));
  });
  app.get('/conversation/:conversation/messages', async (c) =>
    page(c, await service.listConversationMessages(param(c, 'conversation'), readListOptions(c))),
  );
  app.post('/conversation/:conversation/rename', async (c) =>
    jsonAnswer(c, await service.renameConversation(param(c, 'conversation'), readTransferables(c))),
  );
  app.post('/conversation/:conversation/summarize', async (c) =>
    jsonAnswer(c, await service.summarizeConversation(param(c, 'conversation'), readJsonBody(c))),
  );
  app.post('/conversation/:conversation/scores/increment', async (c) => {
    await service.incrementConversationScores(param(c, 'conversation'), readJsonBody(c));
    return noContent(c);
  });

  // Links: one route per verb of each link kind, from the table.
  for (const kind of Object.keys(LINK_KINDS) as LinkKind[]) {
    const route = LINK_ROUTES[kind];
    for (const [verbs, change] of [
      [route.associate, service.associate],
      [route.disassociate, service.disassociate],
    ] as const) {
      for (const verb of verbs) {
        app.post(`/conversation/:conversation/${route.path}/${verb}/:target`, async (c) => {
          await change(kind, param(c, 'conversation'), param(c, 'target'));
          return noContent(c);
        });
      }
    }
  }

  // Messages and the other records conversations link to.
  app.post('/messages/create', async (c) => jsonAnswer(c, await service.createMessage(readJsonBody(c), readTransferables(c))));
  app.post('/messages/:message/delete', async (c) => {
    await service.deleteMessage(param(c, 'message'));
    return noContent(c);
  });
  for (const route of Object.values(RECORD_ROUTES)) {
    const create = service[route.create] as (seed: unknown, read?: object) => Promise<unknown>;
    const list = service[route.list] as (read?: object) => Promise<ListOf<unknown>>;
    const remove = service[route.delete];
    app.post(`/${route.path}/create`, async (c) => jsonAnswer(c, await create(readJsonBody(c), readTransferables(c))));
    app.get(`/${route.path}`, async (c) => page(c, await list(readListOptions(c))));
    app.post(`/${route.path}/:id/delete`, async (c) => {
      await remove(param(c, 'id'));
      return noContent(c);
    });
  }

  // Models
  app.get('/models', async (c) => jsonAnswer(c, await service.listModels()));
  app.post('/models/create', async (c) => jsonAnswer(c, await service.createModel(readJsonBody(c))));
  app.post('/models/unload', async (c) => {
    await service.unloadModels();
    return noContent(c);
  });
  app.post('/models/:model/delete', async (c) => {
    await service.deleteModel(param(c, 'model'));
    return noContent(c);
  });
  // The model lifecycle of the official client's ModelApi.
  app.get('/model/:model', async (c) => jsonAnswer(c, await service.getModel(param(c, 'model'))));
  app.post('/model/update', async (c) => jsonAnswer(c, await service.updateModel(readJsonBody(c))));
  app.post('/model/:model/load', async (c) => jsonAnswer(c, await service.loadModel(param(c, 'model'))));
  app.post('/model/:model/unload', async (c) => jsonAnswer(c, await service.unloadModel(param(c, 'model'))));
  app.post('/model/:model/download', async (c) => jsonAnswer(c, await service.downloadModel(param(c, 'model'))));
  app.post('/model/:model/download/cancel', async (c) => jsonAnswer(c, await service.cancelModelDownload(param(c, 'model'))));
  app.get('/model/:model/download/progress', async (c) => jsonAnswer(c, await service.modelDownloadProgress(param(c, 'model'))));
  app.post('/models/:model/delete/cache', async (c) => jsonAnswer(c, await service.deleteModelCache(param(c, 'model'), readJsonBody(c))));

  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `No route for ${c.req.method} ${c.req.path}.` } }, 404));
  return app;
}
