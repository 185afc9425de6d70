/**
 * The example server (`npm start`): the service on its embedded defaults, a JSON file in a data
 * folder and the embedded summarizer, listening on 127.0.0.1. Environment: PORT (default 39300,
 * the port Pieces OS listens on; 0 picks a free one), HOST (default 127.0.0.1), DATA_DIR (default
 * ./data).
 */
import { serve } from '@hono/node-server';
import { createHonoRouter } from '../adapters/hono/index.js';
import { createService } from '../src/index.js';

const port = Number(process.env.PORT ?? 39300);
const hostname = process.env.HOST ?? '127.0.0.1';
const dataDir = process.env.DATA_DIR ?? 'data';

const service = await createService({ dataDir });
const server = serve({ fetch: createHonoRouter(service).fetch, port, hostname }, (info) => {
  // Tests read this line to find the port.
  console.log(`Listening on http://${hostname}:${info.port} (data in ${dataDir})`);
});

const shutdown = () => {
  server.close(async () => {
    await service.close();
    process.exit(0);
  });
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
