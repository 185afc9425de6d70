/**
 * The router in a plain `node:http` server, beside routes of your own: `@hono/node-server`'s
 * request listener turns Node's request into the router's. Data in a temporary folder, removed at
 * the end.
 *
 *   npx tsx examples/node-http.ts                        serves on 127.0.0.1:$PORT (default 3001)
 *   EXAMPLE_SELF_TEST=1 npx tsx examples/node-http.ts    starts on a free port, calls itself, exits
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createHonoRouter } from '../adapters/hono/index.js';
import { createService } from '../src/index.js';

const selfTest = process.env.EXAMPLE_SELF_TEST === '1';
const dataDir = await mkdtemp(path.join(tmpdir(), 'cms-node-http-'));
const service = await createService({ dataDir });
const serviceListener = getRequestListener(createHonoRouter(service).fetch);

const server = createServer((request, response) => {
  // A route of the host program; everything else goes to the service.
  if (request.url === '/hello') return response.end('hello from the host program\n');
  void serviceListener(request, response);
});

async function shutdown(code = 0): Promise<never> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(code);
}
process.once('SIGINT', () => void shutdown());

server.listen(selfTest ? 0 : Number(process.env.PORT ?? 3001), '127.0.0.1', async () => {
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  console.log(`Listening on ${base}`);
  if (!selfTest) return;
  const hello = await fetch(`${base}/hello`);
  console.log(`GET /hello -> ${hello.status} ${(await hello.text()).trim()}`);
  const created = await fetch(`${base}/conversations/create`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'COPILOT', name: 'Served by node:http' }),
  });
  console.log(`POST /conversations/create -> ${created.status} "${((await created.json()) as { name: string }).name}"`);
  const health = await fetch(`${base}/.well-known/health`);
  console.log(`GET /.well-known/health -> ${health.status} ${await health.text()}`);
  await shutdown(hello.ok && created.ok && health.ok ? 0 : 1);
});
