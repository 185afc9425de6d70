/**
 * `npm run bench:search`: what full-text search costs and how well it finds, in one run.
 *
 * The store: SEARCH_CONVERSATIONS (10,000) conversations of 10 messages, written straight through
 * the repository's transactions in batches of 200 (as bench/build-store.ts does; no fsync while
 * building), the index kept by the store's own writes and saved by its compaction at close. The
 * texts are the developer chats' (../shared/data/devchats/dev.jsonl beside the repository, read by
 * path; without them the benchmark says what to provide and stops, bench/outside-data.ts): each
 * conversation takes one chat (chosen in proportion to its length) and its title as name, and its
 * messages are windows of 200–1,500 characters of that chat's text at random offsets (cut at
 * whitespace), so the store's vocabulary, and the queries', is devchats' developer text (code,
 * logs and paths included). A fixed seed makes every run build the same store.
 *
 * 1. Latency over HTTP: the store served by `startHttpServer` (127.0.0.1, a process of its own),
 *    300 queries of 1, 2 and 3 words (100 each; words drawn in proportion to their frequency in
 *    devchats, stop words and words under 3 letters left out; fixed seed), sent one after the
 *    other from this process: POST /conversations/search and POST /messages/search with the
 *    default limit (20), as the client sends them (transferables on) and with ?transferables=false;
 *    beside them GET /.well-known/health, the HTTP floor, measured in the same turns. Targets:
 *    p50 ≤ 10 ms, p95 ≤ 30 ms. Before it serves, the server's process times the same queries
 *    in-process, the index alone and the service's methods, to show where the time goes.
 * 2. Memory and 3. open time: the store opened (`createJsonFileRepository`) in a fresh process
 *    (--expose-gc) with its index file, with `searchIndex: false`, and after `db.json.search` is
 *    deleted (the open rebuilds the index from the records and saves it), plus an empty folder;
 *    SEARCH_ROUNDS (3) rounds, the variants taking turns, medians. Memory: V8 heap used + external
 *    after a full GC, after the open minus before it; against the index's own estimate
 *    (`index.bytes`) and the characters of text indexed (target ≤ 0.5× the text). With
 *    `searchIndex: false` the first search builds the index in memory (the service's fallback):
 *    its time is printed too.
 * 4. Durable writes: SEARCH_WRITERS (50) concurrent writers calling `createMessage` (fsync, as by
 *    default; texts cut as above) in-process for SEARCH_WRITE_SECONDS (3), on two copies of the
 *    store, one with `searchIndex: true` and one with `false`, a fresh process each,
 *    SEARCH_WRITE_ROUNDS (4) rounds taking turns; ratio with / without, per round, then the
 *    median (target: within 10%). The timed writes start once the index is read from its file
 *    (the store opens without waiting for it; reading it is part 3's open, not a write's cost).
 * 5. The SQLite peer (bench/sqlite-peer.ts; skipped with a printed reason when better-sqlite3's
 *    addon cannot be built, bench/sqlite-addon.ts): the same records in SQLite (a row per message,
 *    FTS5 with the porter tokenizer), its file's size against the store's folder (index
 *    included), and search in-process, ours (service.searchConversations / searchMessages,
 *    transferables false) against FTS5's (the words OR'ed, bm25), each answer made JSON text, the
 *    same SEARCH_QUERIES queries after a warm-up, a fresh process each, SEARCH_ROUNDS rounds taking
 *    turns; medians of the rounds' p50 and p95.
 * 6. Known-item search on the devchats (bench/search-quality.ts), FTS5's ranking beside ours.
 *
 * Env: SEARCH_CONVERSATIONS=10000, SEARCH_ROUNDS=3 (opens), SEARCH_WRITE_ROUNDS=4,
 * SEARCH_WRITE_SECONDS=3, SEARCH_WRITERS=50, SEARCH_QUERIES=300, SEARCH_DEVCHATS (the chats'
 * file), SEARCH_SKIP (comma-separated parts to leave out: latency, open, writes, sqlite, quality).
 * Quick run: SEARCH_CONVERSATIONS=1000 npm run bench:search
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from '../adapters/hono/serve.js';
import type { ConversationRecord, MessageRecord } from '../src/index.js';
import type { DeferredSearchIndex } from '../src/search/deferred-index.js';
import { endsInWord, queryWords } from '../src/search/tokens.js';
import { createService } from '../src/service.js';
// Not the lazy export of src/index.ts: the store's modules load before the memory is measured.
import { createJsonFileRepository } from '../src/stores/json-file/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { conversationRecord } from '../src/testing/records.js';
import { type Answer, send } from './http-client.js';
import { devChats, skippedForData } from './outside-data.js';
import { searchQuality } from './search-quality.js';
import { loadSqlite, sqliteMissing } from './sqlite-addon.js';
import { checkpoint, loadPeer, openPeer, peerQueries } from './sqlite-peer.js';
import { percentile } from './stats.js';
import { conversationId } from './store-format4.js';
import { fixed, folderBytes, MB, median, ratio } from './store-run.js';
import { printTargets, recordTarget, times } from './targets.js';
import { type Chat, queries, readChats as readDevChatTexts, Texts } from './texts.js';

const env = process.env;
const OPTIONS = {
  conversations: Number(env.SEARCH_CONVERSATIONS ?? 10_000),
  rounds: Number(env.SEARCH_ROUNDS ?? 3),
  writeMs: Number(env.SEARCH_WRITE_SECONDS ?? 3) * 1000,
  /** Even, so each store goes first as often as the other. */
  writeRounds: Number(env.SEARCH_WRITE_ROUNDS ?? 4),
  writers: Number(env.SEARCH_WRITERS ?? 50),
  queries: Number(env.SEARCH_QUERIES ?? 300),
  // BENCH_SKIP=sqlite (npm run bench's) leaves the SQLite peer out here too.
  skip: new Set(
    [...(env.SEARCH_SKIP ?? '').split(','), ...((env.BENCH_SKIP ?? '').split(',').includes('sqlite') ? ['sqlite'] : [])].filter(Boolean),
  ),
};
const MESSAGES_PER_CONVERSATION = 10;
const BATCH = 200;
const TARGETS = { p50: 10, p95: 30, memory: 0.5, writes: 0.9 };
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Texts: devchats' own, cut into windows.

const DEVCHATS = devChats().file;
const readChats = () => readDevChatTexts(DEVCHATS);

// ---------------------------------------------------------------------------------------------
// Children: this file in a fresh process (`child <mode> ...`), answering one JSON line on stdout.

type Line = Record<string, number | string | boolean | undefined>;
const live = new Set<ChildProcess>();

function runChild(args: string[], timeoutMs: number, onLine?: (line: Line, child: ChildProcess) => void): Promise<Line[]> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, 'child', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  live.add(child);
  const lines: Line[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as Line;
      lines.push(line);
      onLine?.(line, child);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      const error = lines.find((l) => 'error' in l);
      if (error) reject(new Error(`child ${args[0]}: ${String(error.error)}`));
      else if (code !== 0 && !(signal === 'SIGTERM' && lines.length > 0))
        reject(
          new Error(
            `child ${args.join(' ')} ${signal === 'SIGKILL' ? `killed after ${timeoutMs / 1000} s` : `exited with ${code ?? signal}`}`,
          ),
        );
      else resolve(lines);
    });
  });
}

const print = (line: Line) => console.log(JSON.stringify(line));
const memoryNow = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
};
const messageId = (conversation: number, message: number) =>
  `00000002-0000-4000-8000-${(conversation * MESSAGES_PER_CONVERSATION + message).toString(16).padStart(12, '0')}`;
const fileOf = (dir: string) => path.join(dir, 'db.json');

/** The store's conversations, BATCH at a time, the same in every process (the texts' seed is fixed). */
function* devchatBatches(count: number): Generator<{ conversation: ConversationRecord; messages: MessageRecord[] }[]> {
  const texts = new Texts(readChats(), 1);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let start = 0; start < count; start += BATCH) {
    const batch: { conversation: ConversationRecord; messages: MessageRecord[] }[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const id = conversationId(i);
      const chat = texts.chat();
      const at = (second: number) => ({ value: new Date(base + i * 600_000 + second * 1000).toISOString() });
      const messages: MessageRecord[] = Array.from({ length: MESSAGES_PER_CONVERSATION }, (_, m) => ({
        id: messageId(i, m),
        created: at(m),
        updated: at(m),
        conversation: id,
        role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
        fragment: { string: { raw: texts.window(chat) } },
        groundedConversations: [],
      }));
      const conversation: ConversationRecord = {
        ...conversationRecord(id, chat.title),
        created: at(0),
        updated: at(MESSAGES_PER_CONVERSATION),
        messages: messages.map((m) => m.id),
      };
      batch.push({ conversation, messages });
    }
    yield batch;
  }
}

async function buildChild(dir: string, count: number): Promise<void> {
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir), durability: 'unsafe-no-fsync' });
  let textChars = 0;
  for (const batch of devchatBatches(count)) {
    await repository.transact((tx) => {
      for (const { conversation, messages } of batch) {
        for (const message of messages) {
          textChars += message.fragment!.string!.raw!.length;
          tx.put('messages', message);
        }
        textChars += conversation.name!.length;
        tx.put('conversations', conversation);
      }
    });
  }
  const indexBytes = (await (repository.search as DeferredSearchIndex).ready).index.bytes;
  const writtenMs = performance.now() - t0;
  const t1 = performance.now();
  await repository.close();
  print({ built: true, textChars, indexBytes, writtenMs, closeMs: performance.now() - t1 });
}

/** The SQLite peer's database of the same records (bench/sqlite-peer.ts): a row per message, FTS5 over the texts and names. */
async function buildSqliteChild(file: string, count: number): Promise<void> {
  const loaded = loadSqlite();
  if ('error' in loaded) throw new Error(loaded.error);
  const t0 = performance.now();
  const db = openPeer(loaded.Database, file, { bulk: true });
  for (const batch of devchatBatches(count))
    loadPeer(
      db,
      batch.map(({ conversation, messages }) => {
        const { messages: _ids, ...fields } = conversation;
        return {
          id: conversation.id,
          name: conversation.name ?? '',
          fields,
          messages: messages.map(({ fragment, ...message }) => ({ fields: { ...message, fragment: {} }, text: fragment!.string!.raw! })),
        };
      }),
    );
  checkpoint(db);
  db.close();
  print({ built: true, writtenMs: performance.now() - t0 });
}

/**
 * In-process search timing, ours or FTS5's: the same queries as over HTTP, after a warm-up, each
 * answer made the JSON text an HTTP answer would send (default limit 20, transferables false).
 */
async function engineChild(kind: string, where: string): Promise<void> {
  const chats = readChats();
  let search: { conversations: (q: string) => Promise<string> | string; messages: (q: string) => Promise<string> | string };
  let close: () => Promise<void> | void;
  if (kind === 'ours') {
    const repository = await createJsonFileRepository({ file: fileOf(where) });
    await (repository.search as DeferredSearchIndex).ready;
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const input = (query: string) => ({ engines: { iterable: [{ query }] } });
    search = {
      conversations: async (q) => JSON.stringify(await service.searchConversations(input(q), { transferables: false })),
      messages: async (q) => JSON.stringify(await service.searchMessages(input(q), { transferables: false })),
    };
    close = () => service.close();
  } else {
    const loaded = loadSqlite();
    if ('error' in loaded) throw new Error(loaded.error);
    const db = openPeer(loaded.Database, where);
    const peer = peerQueries(db);
    search = { conversations: (q) => JSON.stringify(peer.searchConversations(q)), messages: (q) => JSON.stringify(peer.searchMessages(q)) };
    close = () => db.close();
  }
  for (const query of queries(chats, 60, 99)) {
    await search.conversations(query);
    await search.messages(query);
  }
  const times = { conversations: [] as number[], messages: [] as number[] };
  for (const query of queries(chats, OPTIONS.queries, 7)) {
    for (const key of ['conversations', 'messages'] as const) {
      const t0 = performance.now();
      await search[key](query);
      times[key].push(performance.now() - t0);
    }
  }
  await close();
  print({
    conversationsP50: percentile(times.conversations, 0.5),
    conversationsP95: percentile(times.conversations, 0.95),
    messagesP50: percentile(times.messages, 0.5),
    messagesP95: percentile(times.messages, 0.95),
  });
}

async function openChild(dir: string, variant: string): Promise<void> {
  const before = memoryNow();
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir), searchIndex: variant !== 'off' });
  const openMs = performance.now() - t0;
  // The store opens first; its index is read (or built) in the background: measured once it is there.
  const index = repository.search ? await (repository.search as DeferredSearchIndex).ready : undefined;
  const searchableMs = performance.now() - t0;
  const after = memoryNow();
  const indexBytes = index?.index.bytes;
  let firstSearchMs: number | undefined;
  if (variant === 'off') {
    // The service's fallback for a store without an index: built in memory at the first search.
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const t1 = performance.now();
    await service.searchConversations({ engines: { iterable: [{ query: 'install' }] } }, { transferables: false });
    firstSearchMs = performance.now() - t1;
  }
  await repository.close();
  print({ openMs, searchableMs, growth: after.heap - before.heap, rss: after.rss, indexBytes, firstSearchMs });
}

/** The in-process steps of a search, timed over the same queries as the HTTP requests: where the time goes. */
const STEPS = [
  { key: 'indexConversations1000', label: 'index.searchConversations, limit 1000 (the candidates the service asks for)' },
  { key: 'indexConversations20', label: 'index.searchConversations, limit 20' },
  { key: 'serviceConversationsPlain', label: 'service.searchConversations, transferables false' },
  { key: 'serviceConversations', label: 'service.searchConversations, default (transferables)' },
  { key: 'indexMessages1000', label: 'index.searchMessages, limit 1000' },
  { key: 'indexMessages20', label: 'index.searchMessages, limit 20' },
  { key: 'serviceMessagesPlain', label: 'service.searchMessages, transferables false' },
  { key: 'serviceMessages', label: 'service.searchMessages, default (transferables)' },
] as const;

async function serveChild(dir: string): Promise<void> {
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir) });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  const openMs = performance.now() - t0;
  // In-process first, while nothing else runs: the same queries as over HTTP, after a warm-up.
  const index = repository.search!;
  const chats = readChats();
  const textQuery = (query: string, limit: number) => ({ text: query, words: queryWords(query), prefix: endsInWord(query), limit });
  const input = (query: string) => ({ engines: { iterable: [{ query }] } });
  const steps: Record<(typeof STEPS)[number]['key'], (query: string) => Promise<unknown>> = {
    indexConversations1000: (q) => index.searchConversations(textQuery(q, 1000)),
    indexConversations20: (q) => index.searchConversations(textQuery(q, 20)),
    serviceConversationsPlain: (q) => service.searchConversations(input(q), { transferables: false }),
    serviceConversations: (q) => service.searchConversations(input(q)),
    indexMessages1000: (q) => index.searchMessages(textQuery(q, 1000)),
    indexMessages20: (q) => index.searchMessages(textQuery(q, 20)),
    serviceMessagesPlain: (q) => service.searchMessages(input(q), { transferables: false }),
    serviceMessages: (q) => service.searchMessages(input(q)),
  };
  for (const query of queries(chats, 60, 99)) for (const step of Object.values(steps)) await step(query);
  const times: Record<string, number[]> = {};
  for (const query of queries(chats, OPTIONS.queries, 7)) {
    for (const [key, step] of Object.entries(steps)) {
      const t1 = performance.now();
      await step(query);
      (times[key] ??= []).push(performance.now() - t1);
    }
  }
  const inProcess = Object.fromEntries(
    Object.entries(times).flatMap(([key, ms]) => [
      [`${key}P50`, percentile(ms, 0.5)],
      [`${key}P95`, percentile(ms, 0.95)],
    ]),
  );
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  print({ port: server.port, openMs, ...inProcess });
  process.once('SIGTERM', async () => {
    await server.close();
    await service.close();
    process.exit(0);
  });
}

async function writesChild(dir: string, variant: string, count: number, round: number): Promise<void> {
  const texts = new Texts(readChats(), 1000 + round);
  const bodies = Array.from({ length: 2000 }, () => texts.window());
  const repository = await createJsonFileRepository({ file: fileOf(dir), searchIndex: variant === 'on' });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  const write = (w: number, n: number) =>
    service.createMessage({
      role: n % 2 === 0 ? 'USER' : 'ASSISTANT',
      fragment: { string: { raw: bodies[(w * 7919 + n) % bodies.length]! } },
      conversation: { id: conversationId(Math.floor((w * count) / OPTIONS.writers)) },
    });
  // Warm-up, not timed: compiles the write path, and lets the index be read from its file (the
  // store opens without waiting for it; its open is part 3's, not a write's cost).
  for (let n = 0; n < 100; n++) await write(n % OPTIONS.writers, n);
  if (variant === 'on') await (repository.search as DeferredSearchIndex).ready;
  const latencies: number[] = [];
  const deadline = performance.now() + OPTIONS.writeMs;
  const writer = async (w: number) => {
    for (let n = 0; performance.now() < deadline && n < 20_000; n++) {
      const t0 = performance.now();
      await write(w, n);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: OPTIONS.writers }, (_, w) => writer(w)));
  const elapsed = performance.now() - t0;
  const t1 = performance.now();
  await service.close();
  print({
    writes: latencies.length,
    opsPerSecond: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    closeMs: performance.now() - t1,
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Latency over HTTP.

const ROUTES = [
  { label: 'POST /conversations/search', path: '/conversations/search' },
  { label: 'POST /messages/search', path: '/messages/search' },
  { label: 'POST /conversations/search?transferables=false', path: '/conversations/search?transferables=false' },
  { label: 'POST /messages/search?transferables=false', path: '/messages/search?transferables=false' },
] as const;
const FLOOR = 'GET /.well-known/health (the HTTP floor)';

async function latency(dir: string, chats: Chat[]): Promise<void> {
  let server: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const ready = await new Promise<Line>((resolve, reject) => {
    exited = runChild(['serve', dir], 600_000, (line, child) => {
      server = child;
      resolve(line);
    }).catch(reject);
  });
  const port = Number(ready.port);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = new Map<string, Answer[]>();
  const measured = queries(chats, OPTIONS.queries, 7);
  const body = (query: string) => JSON.stringify({ engines: { iterable: [{ query }] } });
  try {
    // Warm-up, not measured: other queries, every route.
    for (const query of queries(chats, 60, 99)) for (const route of ROUTES) await send(agent, port, 'POST', route.path, body(query));
    for (const [i, query] of measured.entries()) {
      // Each turn sends the query to every route, starting from a different one, and the floor.
      const turn = [...ROUTES.slice(i % ROUTES.length), ...ROUTES.slice(0, i % ROUTES.length)];
      for (const route of turn) {
        const answer = await send(agent, port, 'POST', route.path, body(query));
        const key = `${route.label}/${1 + (i % 3)}`;
        times.set(key, [...(times.get(key) ?? []), answer]);
        times.set(route.label, [...(times.get(route.label) ?? []), answer]);
      }
      const floor = await send(agent, port, 'GET', '/.well-known/health');
      times.set(FLOOR, [...(times.get(FLOOR) ?? []), floor]);
    }
  } finally {
    agent.destroy();
    server?.kill('SIGTERM');
    // It holds the store's lock until it exits.
    await exited;
  }
  const floorP50 = percentile(
    times.get(FLOOR)!.map((a) => a.ms),
    0.5,
  );
  console.log(
    `\n1. Search latency over HTTP (startHttpServer on 127.0.0.1, its own process; store opened in ${fixed(Number(ready.openMs))} ms): ${OPTIONS.conversations} conversations × ${MESSAGES_PER_CONVERSATION} messages, ${measured.length} queries of 1, 2 and 3 words from the devchats vocabulary (seed 7), sent one at a time over one kept-alive connection, default limit (20); each turn sends one query to every route and then the floor`,
  );
  console.log(
    `| route | words | requests | p50 ms | p95 ms | p99 ms | max ms | mean answer KB | p50 / floor p50 | target p50 ≤ ${TARGETS.p50}, p95 ≤ ${TARGETS.p95} | not 200 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const row = (label: string, words: string, answers: Answer[], target: boolean) => {
    const ms = answers.map((a) => a.ms);
    const [p50, p95, p99] = [0.5, 0.95, 0.99].map((q) => percentile(ms, q)) as [number, number, number];
    const met = `${p50 <= TARGETS.p50 ? 'met' : 'NOT met'}, ${p95 <= TARGETS.p95 ? 'met' : 'NOT met'}`;
    const failed = answers.filter((a) => a.status !== 200).length;
    console.log(
      `| ${label} | ${words} | ${answers.length} | ${fixed(p50, 2)} | ${fixed(p95, 2)} | ${fixed(p99, 2)} | ${fixed(Math.max(...ms), 1)} | ${fixed(answers.reduce((s, a) => s + a.bytes, 0) / answers.length / 1024, 1)} | ${fixed(p50 / floorP50, 1)} | ${target ? met : ''} | ${failed} |`,
    );
  };
  for (const route of ROUTES) {
    row(route.label, 'all', times.get(route.label)!, true);
    for (const words of [1, 2, 3]) row('', String(words), times.get(`${route.label}/${words}`)!, false);
  }
  row(FLOOR, '', times.get(FLOOR)!, false);
  const failures = [...ROUTES.map((r) => r.label), FLOOR].reduce(
    (n, label) => n + times.get(label)!.filter((a) => a.status !== 200).length,
    0,
  );
  if (failures > 0) console.log(`${failures} answers were not 200.`);
  console.log(
    `\nWhere the time goes, in-process in the server's process before it served (the same ${measured.length} queries, each through every step in turn, after a warm-up): the index alone (repository.search, as the service calls it), and the service's method`,
  );
  console.log('| step | p50 ms | p95 ms |');
  console.log('|---|---|---|');
  for (const step of STEPS)
    console.log(`| ${step.label} | ${fixed(Number(ready[`${step.key}P50`]), 2)} | ${fixed(Number(ready[`${step.key}P95`]), 2)} |`);
}

// ---------------------------------------------------------------------------------------------
// 2. Memory and 3. open time.

const VARIANTS = [
  { key: 'empty', label: 'empty folder' },
  { key: 'off', label: 'searchIndex: false' },
  { key: 'on', label: 'with its index file (db.json.search)' },
  { key: 'rebuild', label: 'index file deleted (built again in the background, and saved)' },
] as const;

async function openAndMemory(root: string, dir: string, textChars: number): Promise<void> {
  const runs = new Map<string, Line[]>();
  for (let round = 0; round < OPTIONS.rounds; round++) {
    for (const variant of VARIANTS) {
      let where = dir;
      if (variant.key === 'empty') where = await mkdtemp(path.join(root, 'empty-'));
      if (variant.key === 'rebuild') await rm(`${fileOf(dir)}.search`);
      const [line] = await runChild(['open', where, variant.key], 600_000);
      if (variant.key === 'empty') await rm(where, { recursive: true, force: true });
      runs.set(variant.key, [...(runs.get(variant.key) ?? []), line!]);
      console.error(
        `  open ${variant.label}: ${fixed(Number(line!.openMs))} ms, heap+external +${fixed(Number(line!.growth) / MB, 1)} MB${line!.firstSearchMs === undefined ? '' : `, first search ${fixed(Number(line!.firstSearchMs))} ms`}`,
      );
    }
    console.error(`open round ${round + 1} of ${OPTIONS.rounds}`);
  }
  const of = (key: string, field: string) => median((runs.get(key) ?? []).map((l) => Number(l[field])));
  const indexFile = (await stat(`${fileOf(dir)}.search`)).size;
  const memoryIndex = of('on', 'growth') - of('off', 'growth');
  const memoryRebuilt = of('rebuild', 'growth') - of('off', 'growth');
  const estimate = of('on', 'indexBytes');
  console.log(
    `\n2. Memory of the index: ${OPTIONS.conversations} conversations, ${fixed(textChars / 1e6, 1)} M characters of text indexed (messages and names); V8 heap used + external after a full GC, after the open minus before it, in a fresh process; medians of ${OPTIONS.rounds} opens`,
  );
  console.log(
    '| open | heap + external growth MB | index: growth − growth without it, MB | index.bytes estimate MB | ÷ text characters | target ≤ 0.5 |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(`| searchIndex: false | ${fixed(of('off', 'growth') / MB, 1)} | | | | |`);
  const verdict = (share: number) => (share <= TARGETS.memory ? 'met' : 'NOT met');
  console.log(
    `| with its index file | ${fixed(of('on', 'growth') / MB, 1)} | ${fixed(memoryIndex / MB, 1)} | ${fixed(estimate / MB, 1)} | measured ${fixed(memoryIndex / textChars, 2)}, estimate ${fixed(estimate / textChars, 2)} | ${verdict(memoryIndex / textChars)} |`,
  );
  console.log(
    `| index rebuilt at open | ${fixed(of('rebuild', 'growth') / MB, 1)} | ${fixed(memoryRebuilt / MB, 1)} | ${fixed(of('rebuild', 'indexBytes') / MB, 1)} | measured ${fixed(memoryRebuilt / textChars, 2)} | ${verdict(memoryRebuilt / textChars)} |`,
  );
  console.log(
    `Index file db.json.search: ${fixed(indexFile / MB, 1)} MB (${fixed(indexFile / textChars, 2)} bytes per character of text); the whole folder: ${fixed((await folderBytes(dir)) / MB, 1)} MB.`,
  );
  console.log(`Estimate / measured: ${ratio(estimate, memoryIndex)}.`);

  const beyond = (key: string) => of(key, 'openMs') - of('empty', 'openMs');
  console.log(
    `\n3. Open time (createJsonFileRepository, fresh process): ${OPTIONS.conversations} conversations × ${MESSAGES_PER_CONVERSATION} messages; medians of ${OPTIONS.rounds}; "beyond empty" subtracts the open of an empty folder, as the README's store table does`,
  );
  console.log(
    '| open | ms | beyond empty ms | / searchIndex: false | index in memory after ms (read or built in the background) | RSS MB (then) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const variant of VARIANTS)
    console.log(
      `| ${variant.label} | ${fixed(of(variant.key, 'openMs'))} | ${variant.key === 'empty' ? '' : fixed(beyond(variant.key))} | ${variant.key === 'empty' || variant.key === 'off' ? '' : ratio(beyond(variant.key), beyond('off'))} | ${variant.key === 'off' ? '' : fixed(of(variant.key, 'searchableMs'))} | ${fixed(of(variant.key, 'rss') / MB)} |`,
    );
  console.log(
    `With searchIndex: false the first search builds the index in memory (the service's fallback): ${fixed(of('off', 'firstSearchMs'))} ms.`,
  );
  console.log(
    "README's store targets (Benchmarks / Storage): open beyond empty ≤ 300 ms at 10,000 conversations (≤ 1,000 ms at 50,000), RSS after open beyond empty ≤ 0.5× format 4's db.json at 10,000; those stores hold 20 messages of 300 characters per conversation (6 KB of text), these 10 of 200–1,500 (about 8.5 KB).",
  );
  const target = OPTIONS.conversations === 10_000 ? ` (target ≤ 300 ms: ${beyond('on') <= 300 ? 'met' : 'NOT met'})` : '';
  console.log(`Open beyond empty with the index file: ${fixed(beyond('on'))} ms${target}; rebuild: ${fixed(beyond('rebuild'))} ms.`);
}

// ---------------------------------------------------------------------------------------------
// 4. Durable writes.

async function writes(root: string, dir: string): Promise<void> {
  const copies = { on: path.join(root, 'writes-on'), off: path.join(root, 'writes-off') };
  await cp(dir, copies.on, { recursive: true });
  await cp(dir, copies.off, { recursive: true });
  await rm(`${fileOf(copies.off)}.search`);
  const runs: { on: Line; off: Line }[] = [];
  for (let round = 0; round < OPTIONS.writeRounds; round++) {
    const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    const pair: Partial<Record<'on' | 'off', Line>> = {};
    for (const variant of order) {
      const [line] = await runChild(['writes', copies[variant], variant, String(OPTIONS.conversations), String(round)], 600_000);
      pair[variant] = line!;
      console.error(
        `  writes, searchIndex ${variant === 'on'}: ${fixed(Number(line!.opsPerSecond))}/s, p50 ${fixed(Number(line!.p50), 2)} ms, close ${fixed(Number(line!.closeMs))} ms`,
      );
    }
    runs.push(pair as { on: Line; off: Line });
    console.error(`write round ${round + 1} of ${OPTIONS.writeRounds}`);
  }
  const of = (variant: 'on' | 'off', field: string) => median(runs.map((r) => Number(r[variant][field])));
  const ratios = runs.map((r) => Number(r.on.opsPerSecond) / Number(r.off.opsPerSecond));
  console.log(
    `\n4. Durable writes in-process: ${OPTIONS.writers} concurrent writers, createMessage (fsync, as by default) of 200–1,500 characters of devchats text, each writer into its own conversation of a copy of the ${OPTIONS.conversations}-conversation store; ${OPTIONS.writeMs / 1000} s per run, a fresh process each, the two taking turns (each first in half the rounds); medians of ${OPTIONS.writeRounds} rounds`,
  );
  console.log('| store | writes/s | p50 ms | p99 ms | close ms (compaction, not timed) |');
  console.log('|---|---|---|---|---|');
  for (const variant of ['on', 'off'] as const)
    console.log(
      `| searchIndex: ${variant === 'on'} | ${fixed(of(variant, 'opsPerSecond'))} | ${fixed(of(variant, 'p50'), 2)} | ${fixed(of(variant, 'p99'), 2)} | ${fixed(of(variant, 'closeMs'))} |`,
    );
  const r = median(ratios);
  console.log(
    `Writes/s with the index / without, per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ×${r.toFixed(2)} (target ≥ ×${TARGETS.writes}: ${r >= TARGETS.writes ? 'met' : 'NOT met'}).`,
  );
  recordTarget({
    order: 32,
    target: `durable createMessage with the search index, ${OPTIONS.writers} writers in-process (devchats texts)`,
    ours: `${fixed(of('on', 'opsPerSecond'))}/s`,
    against: `ours without the index ${fixed(of('off', 'opsPerSecond'))}/s`,
    ratio: `×${r.toFixed(2)}`,
    goal: `≥ ×${TARGETS.writes}`,
    met: r >= TARGETS.writes,
  });
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// 5. The SQLite peer: disk, and search in-process.

async function sqlitePeer(root: string, dir: string): Promise<void> {
  const missing = await sqliteMissing();
  if (missing) {
    console.log(`\n5. The SQLite peer: ${missing}`);
    return;
  }
  const file = path.join(root, 'sqlite', 'peer.db');
  await mkdir(path.dirname(file), { recursive: true });
  const [built] = await runChild(['build-sqlite', file, String(OPTIONS.conversations)], 900_000);
  const peerBytes = await folderBytes(path.dirname(file));
  const oursBytes = await folderBytes(dir);
  const runs: { ours: Line; sqlite: Line }[] = [];
  for (let round = 0; round < OPTIONS.rounds; round++) {
    const order = round % 2 === 0 ? (['ours', 'sqlite'] as const) : (['sqlite', 'ours'] as const);
    const pair: Partial<Record<'ours' | 'sqlite', Line>> = {};
    for (const kind of order) {
      const [line] = await runChild(['engine', kind === 'ours' ? dir : file, kind], 600_000);
      pair[kind] = line!;
      console.error(
        `  search in-process, ${kind}: conversations p50 ${fixed(Number(line!.conversationsP50), 2)} / p95 ${fixed(Number(line!.conversationsP95), 2)} ms, messages ${fixed(Number(line!.messagesP50), 2)} / ${fixed(Number(line!.messagesP95), 2)} ms`,
      );
    }
    runs.push(pair as { ours: Line; sqlite: Line });
    console.error(`search round ${round + 1} of ${OPTIONS.rounds}`);
  }
  const of = (kind: 'ours' | 'sqlite', field: string) => median(runs.map((r) => Number(r[kind][field])));
  console.log(
    `\n5. The SQLite peer (better-sqlite3, WAL; a row per message, its text and its fields as JSON; FTS5 with the porter tokenizer over texts and names, its words OR'ed and ranked by bm25, a conversation scored by the sum of its messages'), the same ${OPTIONS.conversations} conversations (loaded in ${fixed(Number(built!.writtenMs) / 1000, 1)} s)`,
  );
  console.log(
    `On disk: ours ${fixed(oursBytes / MB, 1)} MB (the store's folder, its search index included), SQLite ${fixed(peerBytes / MB, 1)} MB (its file, checkpointed, FTS5 included): ${ratio(oursBytes, peerBytes)}.`,
  );
  console.log(
    `Search in-process, ${OPTIONS.queries} queries of 1–3 words (seed 7) after 60 others, default limit 20, each answer made JSON text: ours with transferables false, FTS5's ids and scores; a fresh process each, ${OPTIONS.rounds} rounds taking turns, medians`,
  );
  console.log('| search | ours p50 ms | ours p95 ms | FTS5 p50 ms | FTS5 p95 ms | p50 ours ÷ FTS5 | p95 ours ÷ FTS5 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const key of ['conversations', 'messages'] as const) {
    const [p50, p95, f50, f95] = [of('ours', `${key}P50`), of('ours', `${key}P95`), of('sqlite', `${key}P50`), of('sqlite', `${key}P95`)];
    console.log(
      `| ${key} | ${fixed(p50, 2)} | ${fixed(p95, 2)} | ${fixed(f50, 2)} | ${fixed(f95, 2)} | ${ratio(p50, f50)} | ${ratio(p95, f95)} |`,
    );
    recordTarget({
      order: key === 'conversations' ? 50 : 51,
      target: `search ${key}, p50 / p95, ${OPTIONS.conversations.toLocaleString('en-US')} conversations (in-process)`,
      ours: `${fixed(p50, 1)} / ${fixed(p95, 1)} ms`,
      against: `SQLite FTS5 ${fixed(f50, 1)} / ${fixed(f95, 1)} ms`,
      ratio: `${times(p50, f50)} / ${times(p95, f95)}`,
      goal: '≤ ×1.0 both',
      met: p50 <= f50 && p95 <= f95,
    });
  }
  recordTarget({
    order: 60,
    target: `on disk, ${OPTIONS.conversations.toLocaleString('en-US')} conversations × ${MESSAGES_PER_CONVERSATION} messages, index included`,
    ours: `${fixed(oursBytes / MB, 1)} MB`,
    against: `SQLite's file ${fixed(peerBytes / MB, 1)} MB`,
    ratio: times(oursBytes, peerBytes),
    goal: '≤ ×1.2',
    met: oursBytes <= 1.2 * peerBytes,
  });
}

async function main(): Promise<void> {
  const skip = (part: string) => OPTIONS.skip.has(part);
  // Every part stores or searches the developer chats' texts.
  const skipped = skippedForData('bench:search', devChats());
  if (skipped) {
    console.error(skipped);
    return;
  }
  console.log(`bench:search, ${new Date().toISOString()}, Node ${process.version}; texts from ${DEVCHATS}`);
  const chats = readChats();
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-search-'));
  const interrupted = () => {
    for (const child of live) child.kill('SIGKILL');
    void rm(root, { recursive: true, force: true }).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const dir = path.join(root, 'store');
    if (!skip('latency') || !skip('open') || !skip('writes') || !skip('sqlite')) {
      const t0 = performance.now();
      const [built] = await runChild(['build', dir, String(OPTIONS.conversations)], 900_000);
      const textChars = Number(built!.textChars);
      console.log(
        `\nStore: ${OPTIONS.conversations} conversations × ${MESSAGES_PER_CONVERSATION} messages built in ${fixed((performance.now() - t0) / 1000, 1)} s (writes ${fixed(Number(built!.writtenMs) / 1000, 1)} s, close ${fixed(Number(built!.closeMs) / 1000, 1)} s); ${fixed(textChars / 1e6, 1)} M characters of text; folder ${fixed((await folderBytes(dir)) / MB, 1)} MB`,
      );
      if (!skip('latency')) await latency(dir, chats);
      if (!skip('open')) await openAndMemory(root, dir, textChars);
      if (!skip('writes')) await writes(root, dir);
      if (!skip('sqlite')) await sqlitePeer(root, dir);
    }
    if (!skip('quality')) await searchQuality(DEVCHATS);
    // Alone (`npm run bench:search`), it prints its rows of the targets table; under `npm run bench`, bench/index.ts does.
    if (!env.BENCH_TARGETS_FILE) printTargets(undefined, 'Targets (issue 30) measured here');
  } finally {
    for (const child of live) child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
}

async function child(args: string[]): Promise<void> {
  const [mode, dir, ...rest] = args as [string, string, ...string[]];
  try {
    if (mode === 'build') await buildChild(dir, Number(rest[0]));
    else if (mode === 'open') await openChild(dir, rest[0]!);
    else if (mode === 'serve') await serveChild(dir);
    else if (mode === 'writes') await writesChild(dir, rest[0]!, Number(rest[1]), Number(rest[2]));
    else if (mode === 'build-sqlite') await buildSqliteChild(dir, Number(rest[0]));
    else if (mode === 'engine') await engineChild(rest[0]!, dir);
    else throw new Error(`unknown mode ${mode}`);
  } catch (error) {
    print({ error: (error as Error).message });
    console.error(error);
    process.exitCode = 1;
  }
}

if (process.argv[2] === 'child') await child(process.argv.slice(3));
else await main();
