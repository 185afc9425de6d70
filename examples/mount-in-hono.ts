/**
 * Mounting the service in an existing Hono app: the app keeps its own routes, and the service's
 * routes live under `/pieces` (so a Pieces client uses `basePath: 'http://127.0.0.1:3000/pieces'`).
 *
 *   npx tsx examples/mount-in-hono.ts                       serves on 127.0.0.1:$PORT (default 3000)
 *   EXAMPLE_SELF_TEST=1 npx tsx examples/mount-in-hono.ts   starts on a free port, calls itself, exits
 *
 * Environment: PORT, DATA_DIR (default: in memory).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createHonoRouter } from '../adapters/hono/index.js';
import { createService } from '../src/index.js';

const selfTest = process.env.EXAMPLE_SELF_TEST === '1';
const port = selfTest ? 0 : Number(process.env.PORT ?? 3000);
const hostname = '127.0.0.1';

// The host app, with routes of its own.
const app = new Hono();
app.get('/', (c) => c.text('My app'));
app.get('/health', (c) => c.json({ ok: true }));

// The service, mounted under a prefix. Its errors keep their shape: the router has its own onError.
const service = await createService(process.env.DATA_DIR ? { dataDir: process.env.DATA_DIR } : {});
app.route('/pieces', createHonoRouter(service));

const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
  console.log(`Listening on http://${hostname}:${info.port} (the service is under /pieces)`);
  if (selfTest) void runSelfTest(info.port);
});

async function shutdown(code = 0): Promise<never> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await service.close();
  process.exit(code);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());

/** Calls one of the app's own routes and a few mounted ones, prints the answers, and exits. */
async function runSelfTest(actualPort: number): Promise<void> {
  const base = `http://${hostname}:${actualPort}`;
  try {
    const health = await fetch(`${base}/health`);
    console.log(`GET /health -> ${health.status} ${await health.text()}`);

    const created = await fetch(`${base}/pieces/conversations/create`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'COPILOT', name: 'Mounted conversation' }),
    });
    const conversation = (await created.json()) as { id: string; name?: string };
    console.log(`POST /pieces/conversations/create -> ${created.status} "${conversation.name}"`);

    const read = await fetch(`${base}/pieces/conversation/${conversation.id}`);
    const stored = (await read.json()) as { name?: string };
    console.log(`GET /pieces/conversation/{id} -> ${read.status} "${stored.name}"`);

    const models = await fetch(`${base}/pieces/models`);
    const list = (await models.json()) as { iterable: { name: string }[] };
    console.log(`GET /pieces/models -> ${models.status} ${list.iterable.map((model) => model.name).join(', ')}`);

    const missing = await fetch(`${base}/pieces/conversation/no-such-id`);
    console.log(`GET /pieces/conversation/no-such-id -> ${missing.status} ${await missing.text()}`);

    const ok = health.ok && created.ok && read.ok && models.ok && missing.status === 410;
    await shutdown(ok ? 0 : 1);
  } catch (error) {
    console.error(error);
    await shutdown(1);
  }
}
