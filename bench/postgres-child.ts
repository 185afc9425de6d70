/**
 * One bench/postgres.ts measurement in a process of its own, on the store its arguments name
 * (`--dir D`: the JSON-file store in folder D; `--url U --schema S`: PostgreSQL), through the
 * service's operations. Each result is one JSON line on stdout. Modes:
 *   serve    the service over HTTP (startHttpServer, 127.0.0.1, a free port); prints {port, openMs, search}, serves until SIGTERM
 *   writes --count N   OPTIONS.writers concurrent writers, each createMessage into its own conversation of N, for BENCH_PG_SECONDS
 *   append   ms per createMessage at each checkpoint (a conversation created with c - 100 messages grows by 100)
 */
import { startHttpServer } from '../adapters/hono/serve.js';
import { createJsonFileRepository, createService, type Repository, type Service } from '../src/index.js';
import { createPostgresRepository } from '../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { MAX_OPS, OPTIONS, WINDOW } from './postgres-options.js';
import { latencySummary, mean } from './stats.js';
import { conversationId } from './store-format4.js';
import { median } from './store-run.js';
import { MESSAGE_CHARS } from './text-store.js';
import { benchChats, Texts } from './texts.js';

const args = process.argv.slice(2);
const mode = args[0];
const flag = (name: string) => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? undefined : args[index + 1];
};
function fail(message: string): never {
  throw new Error(`postgres-child ${mode}: ${message}`);
}
const print = (line: object) => console.log(JSON.stringify(line));

/** The store the arguments name, as a service; and which search it answers with. */
async function open(): Promise<{ service: Service; repository: Repository; search: string; openMs: number }> {
  const t0 = performance.now();
  const dir = flag('dir');
  const url = flag('url');
  let repository: Repository;
  if (dir) repository = await createJsonFileRepository({ file: `${dir}/db.json` });
  else if (url)
    repository = await createPostgresRepository({ connectionString: url }, { schema: flag('schema') ?? fail('--schema is required') });
  else fail('--dir or --url is required');
  // A store with a search of its own is searched through it; else the service keeps an index in memory (withSearch).
  const search = dir ? 'its own index (db.json.search)' : repository.search ? 'native' : 'in-memory index (withSearch)';
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  return { service, repository, search, openMs: performance.now() - t0 };
}

/** Messages of about 300 characters, from a seed of their own (not the store's texts). */
function messageTexts(seed: number): string[] {
  const texts = new Texts(benchChats().chats, seed, MESSAGE_CHARS);
  return Array.from({ length: 1000 }, () => texts.window());
}

async function serve(): Promise<void> {
  const { service, search, openMs } = await open();
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  print({ port: server.port, openMs, search });
  process.once('SIGTERM', async () => {
    await server.close();
    await service.close();
    process.exit(0);
  });
}

async function writes(): Promise<void> {
  const count = Number(flag('count') ?? fail('--count is required'));
  const { service } = await open();
  const bodies = messageTexts(1000);
  const write = (w: number, n: number) =>
    service.createMessage(
      {
        role: n % 2 === 0 ? 'USER' : 'ASSISTANT',
        fragment: { string: { raw: bodies[(w * 7919 + n) % bodies.length]! } },
        conversation: { id: conversationId(Math.floor((w * count) / OPTIONS.writers)) },
      },
      { transferables: false },
    );
  // Warm-up, not timed: one write per writer compiles the write path.
  await Promise.all(Array.from({ length: OPTIONS.writers }, (_, w) => write(w, 0)));
  const latencies: number[] = [];
  const errors: string[] = [];
  const deadline = performance.now() + OPTIONS.loadMs;
  const writer = async (w: number) => {
    for (let n = 1; n < 20_000 && latencies.length < MAX_OPS && performance.now() < deadline; n++) {
      const t0 = performance.now();
      try {
        await write(w, n);
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
  await service.close();
  print({
    writes: latencies.length,
    opsPerSecond: (latencies.length / elapsed) * 1000,
    ...latencySummary(latencies),
    errors: errors.length,
    ...(errors[0] ? { firstError: errors[0] } : {}),
  });
}

/**
 * For each checkpoint c, BENCH_PG_APPEND_REPEATS times: a conversation created with c - 100
 * messages, then 100 appends (fewer below 100) to reach c, timed one by one. Answers the median of
 * the repeats' means per checkpoint. Stops starting repeats after 150 s.
 */
async function append(): Promise<void> {
  const { service } = await open();
  const bodies = messageTexts(2000);
  const seed = (n: number) =>
    ({ role: n % 2 === 0 ? 'USER' : 'ASSISTANT', fragment: { string: { raw: bodies[n % bodies.length]! } } }) as const;
  const add = (id: string, n: number) => service.createMessage({ ...seed(n), conversation: { id } }, { transferables: false });
  const deadline = performance.now() + 150_000;
  // Warm-up, so the first checkpoint does not pay for compiling the code path.
  const warm = await service.createConversation({ type: 'COPILOT', name: 'Warm-up' }, { transferables: false });
  for (let n = 0; n < WINDOW; n++) await add(warm.id, n);
  for (const checkpoint of OPTIONS.checkpoints) {
    const appends = Math.min(WINDOW, checkpoint);
    const repeats: { ms: number; setupMs: number; latencies: number[] }[] = [];
    for (let r = 0; r < OPTIONS.appendRepeats && performance.now() < deadline; r++) {
      const t0 = performance.now();
      const { id } = await service.createConversation(
        { type: 'COPILOT', name: `Grows to ${checkpoint}`, messages: Array.from({ length: checkpoint - appends }, (_, n) => seed(n)) },
        { transferables: false },
      );
      const setupMs = performance.now() - t0;
      const latencies: number[] = [];
      for (let n = checkpoint - appends; n < checkpoint; n++) {
        const t1 = performance.now();
        await add(id, n);
        latencies.push(performance.now() - t1);
      }
      repeats.push({ ms: mean(latencies), setupMs, latencies });
    }
    if (repeats.length === 0) {
      print({ messages: checkpoint, error: 'not reached in 150 s' });
      continue;
    }
    print({
      messages: checkpoint,
      repeats: repeats.length,
      msPerAppend: median(repeats.map((r) => r.ms)),
      ...latencySummary(repeats.flatMap((r) => r.latencies)),
      setupMs: median(repeats.map((r) => r.setupMs)),
    });
  }
  await service.close();
}

const modes: Record<string, () => Promise<void>> = { serve, writes, append };
const run = mode ? modes[mode] : undefined;
try {
  if (!run) fail(`unknown mode; one of ${Object.keys(modes).join(', ')}`);
  await run();
} catch (error) {
  print({ error: (error as Error).message });
  console.error(error);
  process.exitCode = 1;
}
