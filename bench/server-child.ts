/**
 * A server of `npm run bench` in a process of its own, started afresh, printing one JSON line
 * `{port, readyMs}` once it listens, readyMs timed from the end of its modules' loading (the
 * parent times the rest, to its first answer):
 *   ours <db.json>      the service on the JSON-file store, served by `startHttpServer` (127.0.0.1)
 *   sqlite <file.db>    the SQLite peer (bench/sqlite-peer.ts) on the same @hono/node-server
 * SIGTERM closes it.
 */
import { serve } from '@hono/node-server';
import { startHttpServer } from '../adapters/hono/serve.js';
import { createJsonFileRepository, createService } from '../src/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { loadSqlite } from './sqlite-addon.js';
import { openPeer, peerApp } from './sqlite-peer.js';

const [kind, file] = process.argv.slice(2) as ['ours' | 'sqlite', string];
const started = performance.now();

if (kind === 'ours') {
  const repository = await createJsonFileRepository({ file });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ port: server.port, readyMs: performance.now() - started }));
  process.once('SIGTERM', async () => {
    await server.close();
    await service.close();
    process.exit(0);
  });
} else {
  const loaded = loadSqlite();
  if ('error' in loaded) throw new Error(loaded.error);
  const db = openPeer(loaded.Database, file);
  serve({ fetch: peerApp(db).fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    console.log(JSON.stringify({ port: info.port, readyMs: performance.now() - started })),
  );
  process.once('SIGTERM', () => {
    db.close();
    process.exit(0);
  });
}
