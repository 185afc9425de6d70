/**
 * One benchmark subject in its own process, so its memory and CPU are its own. Modes:
 *   serve <journal|naive> <file> <ids>      serve the store over HTTP; print {port, openMs, rss, bodyBytes}
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
  // The bare route answers a constant object of the same size as a real conversation answer.
  const constant = await service.getConversation(ids.conversations[0]!, { transferables: false });
  // The bare write route reads the same body as POST /messages/create (Hono's own c.req.json)
  // and answers a constant of the size of a created message.
  const message = await service.createMessage({ ...WRITE_BODY, conversation: { id: ids.conversations[0]! } });
  // And one of the size of a conversation's messages, for GET /conversation/{id}/messages.
  const constantMessages = await service.listConversationMessages(ids.conversations[0]!, { transferables: false });
  const app = new Hono();
  app.get('/bare', (c) => c.json(constant));
  app.get('/bare-messages', (c) => c.json(constantMessages));
  app.post('/bare-write', async (c) => {
    await c.req.json();
    return c.json(message);
  });
  app.route('/', createHonoRouter(service));
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    console.log(
      JSON.stringify({
        port: info.port,
        openMs,
        rss,
        bodyBytes: JSON.stringify(constant).length,
        messagesBodyBytes: JSON.stringify(constantMessages).length,
      }),
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
