/**
 * One bench:store measurement in a fresh process, against the checkout at `--root`: the store is
 * `await import(<root>/src/index.ts)`, so the same code measures format 4 and the new format. Only
 * the service's operations are used (createService, createConversation, createMessage,
 * getConversation, listConversationMessages, close), never the Repository's read/transact, whose
 * signatures differ between the two. Each result is one JSON line on stdout. Modes:
 *   open --root R --dir D [--probe ID]   createService({ dataDir }) (+ one conversation read): time, RSS
 *   migrate --root R --dir D             open and close once (the new code migrates a format-4 folder)
 *   whole --file F                       the old reader: the whole file as one string, then JSON.parse
 *   append --root R --dir D              ms and bytes written per createMessage at each checkpoint
 *   reads --root R --count N (--dir D | --memory)   getConversation + listConversationMessages, ops/s
 *   writes --root R --dir D --count N    createMessage by concurrent writers, ops/s
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { latencySummary, mean } from './stats.js';
import { conversationId, MESSAGES_PER_CONVERSATION, messageText } from './store-format4.js';
import { MAX_OPS, median, OPTIONS, WINDOW } from './store-run.js';

/** The service operations both releases have, as far as the children use them. */
interface ServiceLike {
  createConversation(seed: object): Promise<{ id: string }>;
  createMessage(seed: object): Promise<{ id: string }>;
  getConversation(id: string): Promise<unknown>;
  listConversationMessages(id: string): Promise<{ iterable: unknown[] }>;
  /** Only this release's (search). */
  searchMessages?(input: object, options: object): Promise<unknown>;
  close(): Promise<void>;
}
interface StoreModule {
  createService(options: object): Promise<ServiceLike>;
  createMemoryRepository(): unknown;
}

const args = process.argv.slice(2);
const mode = args[0];
const flag = (name: string) => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? undefined : args[index + 1];
};
const need = (name: string) => flag(name) ?? fail(`--${name} is required`);
function fail(message: string): never {
  throw new Error(`store-child ${mode}: ${message}`);
}

const print = (line: object) => console.log(JSON.stringify(line));
const rssNow = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
/** Bytes this process has handed to write(2) and friends so far (Linux), else undefined. */
async function bytesWritten(): Promise<number | undefined> {
  const io = await readFile('/proc/self/io', 'utf8').catch(() => undefined);
  const match = io?.match(/^wchar:\s*(\d+)/m);
  return match ? Number(match[1]) : undefined;
}

async function load(): Promise<{ store: StoreModule; summarizer: object }> {
  const root = need('root');
  const store = (await import(pathToFileURL(path.join(root, 'src/index.ts')).href)) as StoreModule;
  const { createFakeSummarizer } = (await import(pathToFileURL(path.join(root, 'src/summarizers/index.ts')).href)) as {
    createFakeSummarizer(): object;
  };
  return { store, summarizer: createFakeSummarizer() };
}

const text = messageText(OPTIONS.messageChars);
const messageSeed = (n: number) => ({ role: n % 2 === 0 ? 'USER' : 'ASSISTANT', fragment: { string: { raw: text } } });
const append = (service: ServiceLike, id: string, n: number) => service.createMessage({ ...messageSeed(n), conversation: { id } });

async function open(): Promise<void> {
  const { store, summarizer } = await load();
  const probe = flag('probe');
  const rssBefore = rssNow();
  const t0 = performance.now();
  const service = await store.createService({ dataDir: need('dir'), summarizer });
  const openMs = performance.now() - t0;
  let firstReadMs: number | undefined;
  let messages: number | undefined;
  if (probe) {
    const t1 = performance.now();
    await service.getConversation(probe);
    messages = (await service.listConversationMessages(probe)).iterable.length;
    firstReadMs = performance.now() - t1;
  }
  const rss = rssNow();
  // This release's search index is read in the background after the open: how long until a
  // first search answers, and what the process holds once it is in memory.
  let searchableMs: number | undefined;
  let rssSearchable: number | undefined;
  if (service.searchMessages) {
    await service.searchMessages({ engines: { iterable: [{ query: 'backoff' }] } }, { limit: 1, transferables: false });
    searchableMs = performance.now() - t0;
    rssSearchable = rssNow();
  }
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const t2 = performance.now();
  await service.close();
  print({ openMs, firstReadMs, messages, rssBefore, rss, searchableMs, rssSearchable, peakRss, closeMs: performance.now() - t2 });
}

async function migrate(): Promise<void> {
  const { store, summarizer } = await load();
  const t0 = performance.now();
  const service = await store.createService({ dataDir: need('dir'), summarizer });
  const openMs = performance.now() - t0;
  const t1 = performance.now();
  await service.close();
  print({ migrated: true, openMs, closeMs: performance.now() - t1 });
}

async function whole(): Promise<void> {
  try {
    const data = JSON.parse(await readFile(need('file'), 'utf8')) as { conversations: unknown[] };
    print({ ok: true, conversations: data.conversations.length });
  } catch (error) {
    print({ ok: false, error: `${(error as Error).name}: ${(error as Error).message}` });
  }
}

/**
 * For each checkpoint c, BENCH_STORE_APPEND_REPEATS times: a conversation created with c - 100
 * messages, then 100 appends (fewer below 100) to reach c, timed one by one, and the bytes the
 * process wrote meanwhile. Answers the median of the repeats' means.
 */
async function appendCost(): Promise<void> {
  const { store, summarizer } = await load();
  const deadline = performance.now() + OPTIONS.appendMs;
  const service = await store.createService({ dataDir: need('dir'), summarizer });
  // Warm-up, so the first checkpoint does not pay for compiling the code path.
  const warm = await service.createConversation({ type: 'COPILOT', name: 'Warm-up' });
  for (let n = 0; n < WINDOW; n++) await append(service, warm.id, n);
  for (const checkpoint of OPTIONS.checkpoints) {
    const appends = Math.min(WINDOW, checkpoint);
    const repeats: { ms: number; bytes: number | undefined; setupMs: number; latencies: number[] }[] = [];
    try {
      for (let r = 0; r < OPTIONS.appendRepeats && performance.now() < deadline; r++) {
        const t0 = performance.now();
        const { id } = await service.createConversation({
          type: 'COPILOT',
          name: `Grows to ${checkpoint}`,
          messages: Array.from({ length: checkpoint - appends }, (_, n) => messageSeed(n)),
        });
        const setupMs = performance.now() - t0;
        const bytesBefore = await bytesWritten();
        const latencies: number[] = [];
        for (let n = checkpoint - appends; n < checkpoint; n++) {
          const t1 = performance.now();
          await append(service, id, n);
          latencies.push(performance.now() - t1);
        }
        const bytesAfter = await bytesWritten();
        const bytes = bytesBefore === undefined || bytesAfter === undefined ? undefined : (bytesAfter - bytesBefore) / appends;
        repeats.push({ ms: mean(latencies), bytes, setupMs, latencies });
      }
    } catch (error) {
      print({ messages: checkpoint, error: (error as Error).message });
      continue;
    }
    if (repeats.length === 0) {
      print({ messages: checkpoint, error: `not reached in the ${OPTIONS.appendMs / 1000} s of BENCH_STORE_APPEND_SECONDS` });
      continue;
    }
    print({
      messages: checkpoint,
      appends,
      repeats: repeats.length,
      msPerAppend: median(repeats.map((r) => r.ms)),
      ...latencySummary(repeats.flatMap((r) => r.latencies)),
      bytesPerAppend: repeats.some((r) => r.bytes === undefined) ? undefined : median(repeats.map((r) => r.bytes!)),
      setupMs: median(repeats.map((r) => r.setupMs)),
    });
  }
  await service.close();
}

/** Repeats `op` for `ms` (and at most MAX_OPS times); answers how many ran per second. */
async function repeat(ms: number, op: (i: number) => Promise<unknown>): Promise<{ ops: number; opsPerSecond: number }> {
  const t0 = performance.now();
  const deadline = t0 + ms;
  let ops = 0;
  while (ops < MAX_OPS && performance.now() < deadline) await op(ops++);
  return { ops, opsPerSecond: (ops / (performance.now() - t0)) * 1000 };
}

async function reads(): Promise<void> {
  const { store, summarizer } = await load();
  const count = Number(need('count'));
  let service: ServiceLike;
  let ids: string[];
  const t0 = performance.now();
  if (args.includes('--memory')) {
    // The same data as the built store, through the service: `count` conversations of 20 messages.
    service = await store.createService({ repository: store.createMemoryRepository(), summarizer });
    ids = [];
    for (let i = 0; i < count; i++) {
      const messages = Array.from({ length: MESSAGES_PER_CONVERSATION }, (_, n) => messageSeed(n));
      ids.push((await service.createConversation({ type: 'COPILOT', name: `Conversation ${i}`, messages })).id);
    }
  } else {
    service = await store.createService({ dataDir: need('dir'), summarizer });
    ids = Array.from({ length: count }, (_, i) => conversationId(i));
  }
  const readyMs = performance.now() - t0;
  const read = async (id: string) => {
    await service.getConversation(id);
    const { iterable } = await service.listConversationMessages(id);
    if (iterable.length < MESSAGES_PER_CONVERSATION) fail(`conversation ${id} has ${iterable.length} messages`);
  };
  await read(ids[0]!);
  const hot = await repeat(OPTIONS.readMs, () => read(ids[0]!));
  // A stride coprime with the count visits every conversation once per pass, far from the last one.
  let stride = Math.max(1, Math.floor(count * 0.618));
  while (gcd(stride, count) !== 1) stride++;
  const spread = await repeat(OPTIONS.readMs, (i) => read(ids[(1 + i * stride) % count]!));
  await service.close();
  print({
    reads: true,
    readyMs,
    hotOps: hot.ops,
    hotOpsPerSecond: hot.opsPerSecond,
    spreadOps: spread.ops,
    spreadOpsPerSecond: spread.opsPerSecond,
    spreadDistinct: Math.min(spread.ops, count),
  });
}
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

async function writes(): Promise<void> {
  const { store, summarizer } = await load();
  const count = Number(need('count'));
  const service = await store.createService({ dataDir: need('dir'), summarizer });
  const latencies: number[] = [];
  const errors: string[] = [];
  const deadline = performance.now() + OPTIONS.writeMs;
  // Writer w appends to its own conversation, spread over the store; a conversation holds at most
  // 20,000 messages, so no writer goes past a few thousand appends per run.
  const writer = async (w: number) => {
    const id = conversationId(Math.floor((w * count) / OPTIONS.writers));
    for (let n = 0; n < 5_000 && latencies.length < MAX_OPS && performance.now() < deadline; n++) {
      const t0 = performance.now();
      try {
        await append(service, id, n);
      } catch (error) {
        errors.push((error as Error).message);
        return;
      }
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
    ...latencySummary(latencies),
    closeMs: performance.now() - t1,
    errors: errors.length,
    ...(errors[0] ? { firstError: errors[0] } : {}),
  });
}

const modes: Record<string, () => Promise<void>> = { open, migrate, whole, append: appendCost, reads, writes };
const run = mode ? modes[mode] : undefined;
if (!run) fail(`unknown mode; one of ${Object.keys(modes).join(', ')}`);
try {
  await run();
} catch (error) {
  print({ error: (error as Error).message });
  console.error(error);
  process.exitCode = 1;
}
