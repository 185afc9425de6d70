/**
 * One benchmark subject in its own process, so its memory and CPU are its own. Modes:
 *   serve <journal|naive> <file> <ids>      serve the store over HTTP, beside the ceiling routes (its own answers
 *                                           from memory); print {port, openMs, rss, bodyBytes, messagesBodyBytes}
 *   inprocess <journal|naive> <file> <ids>  run link mutations in-process; print their figures
 */
import { readFile } from 'node:fs/promises';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createHonoRouter } from '../adapters/hono/index.js';
import { createJsonFileRepository, createService, type Repository } from '../src/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { type BuiltStore, WRITE_BODY } from './build-store.js';
import { createNaiveLowdbRepository } from './naive-lowdb-repository.js';
import { latencySummary } from './stats.js';

const [mode, store, file, idsFile] = process.argv.slice(2) as [string, 'journal' | 'naive', string, string];

const started = performance.now();
const repository: Repository = store === 'naive' ? await createNaiveLowdbRepository(file) : await createJsonFileRepository({ file });
const service = await createService({
  repository,
  summarizer: createFakeSummarizer(),
  ...(process.env.BENCH_JSON_CACHE_BYTES ? { conversationJsonCacheBytes: Number(process.env.BENCH_JSON_CACHE_BYTES) } : {}),
});
const openMs = performance.now() - started;
globalThis.gc?.();
const rss = process.memoryUsage().rss;

if (mode === 'serve') {
  const ids = JSON.parse(await readFile(idsFile, 'utf8')) as BuiltStore;
  const router = createHonoRouter(service);
  // The ceiling of a cached read: the service's own answers (bytes and headers), fetched once for
  // every conversation the load reads, then served from a Map by bare routes on the same server.
  // A read can be no faster than handing over bytes it already holds.
  const ceiling = new Map<string, { body: Uint8Array; headers: Record<string, string> }>();
  for (const id of ids.conversations) {
    for (const suffix of ['', '/messages']) {
      const answer = await router.request(`/conversation/${id}${suffix}?transferables=false`, { headers: { host: '127.0.0.1' } });
      if (answer.status !== 200) throw new Error(`GET /conversation/${id}${suffix} answered ${answer.status}`);
      const body = new Uint8Array(await answer.arrayBuffer());
      const headers = Object.fromEntries(answer.headers);
      headers['content-length'] = String(body.byteLength);
      ceiling.set(`${id}${suffix}`, { body, headers });
    }
  }
  // The bare write route reads the same body as POST /messages/create (Hono's own c.req.json)
  // and answers a constant of the size of a created message (in a conversation of its own: the
  // conversations measured stay as the ceiling holds them).
  const aside = await service.createConversation({ type: 'COPILOT' });
  const message = await service.createMessage({ ...WRITE_BODY, conversation: { id: aside.id } });
  const app = new Hono();
  const fromMemory = (key: string) => {
    const answer = ceiling.get(key);
    return answer ? new Response(answer.body, { headers: answer.headers }) : new Response(null, { status: 404 });
  };
  app.get('/ceiling/conversation/:id', (c) => fromMemory(c.req.param('id')));
  app.get('/ceiling/conversation/:id/messages', (c) => fromMemory(`${c.req.param('id')}/messages`));
  app.post('/bare-write', async (c) => {
    await c.req.json();
    return c.json(message);
  });
  app.route('/', router);
  const first = ceiling.get(ids.conversations[0]!)!;
  const firstMessages = ceiling.get(`${ids.conversations[0]!}/messages`)!;
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    console.log(
      JSON.stringify({ port: info.port, openMs, rss, bodyBytes: first.body.byteLength, messagesBodyBytes: firstMessages.body.byteLength }),
    );
  });
  process.on('SIGTERM', () => process.exit(0));
} else {
  const ids = JSON.parse(await readFile(idsFile, 'utf8')) as BuiltStore;
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
  const latencies: number[] = [];
  const deadline = performance.now() + durationMs;
  let seed = 1;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const client = async () => {
    for (let op = 0; performance.now() < deadline && op < 1_000_000; op++) {
      const conversation = ids.conversations[random(ids.conversations.length)]!;
      const website = ids.websites[random(ids.websites.length)]!;
      const t0 = performance.now();
      if (op % 2 === 0) await service.associateWebsite(conversation, website);
      else await service.disassociateWebsite(conversation, website);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 50 }, client));
  const elapsed = performance.now() - t0;
  // Closing folds the journal into the snapshot, so the next subject opens a compact store.
  await service.close();
  console.log(JSON.stringify({ openMs, rss, opsPerSecond: (latencies.length / elapsed) * 1000, ...latencySummary(latencies) }));
}
