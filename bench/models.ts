/**
 * `npm run bench:models`: what running models costs, in-process, on this machine.
 *
 * - The in-process GGUF runtime (node-llama-cpp, CPU) on random-weight llama models generated here:
 *   the tiny one of the tests (~0.1 MB) and a heavier one (~35 MB, a 16k vocabulary) whose memory
 *   stands out of the noise. For each: load time, rename latency p50/p95 through the service
 *   (prompt, generation of a title of at most 32 tokens, cleaning, and the embedded summarizer when
 *   the gibberish is unusable), and RSS before load, loaded, after unload.
 * - The OpenAI-compatible runtime against a local fake server that answers at once: the same
 *   rename latency, i.e. what the service and HTTP add around a model.
 *
 * Figures only, no assertions. Env: BENCH_RENAMES=40 renames per subject, BENCH_THREADS=1.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createService, type Service } from '../src/index.js';
import { cacheFolderOf } from '../src/models/cache-folder.js';
import type { ModelRuntime } from '../src/ports.js';
import { createLlamaCppRuntime } from '../src/runtimes/llama-cpp.js';
import { createOpenAiCompatibleRuntime } from '../src/runtimes/openai-compatible.js';
import { rssMiB } from '../test/helpers/memory.js';
import { startOpenAiServer } from '../test/helpers/openai-server.js';
import { type TinyGgufOptions, writeTinyGguf } from '../test/helpers/tiny-gguf.js';
import { percentile } from './stats.js';

const RENAMES = Number(process.env.BENCH_RENAMES ?? 40);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);

const ms = (value: number) => `${value.toFixed(1)} ms`;
const mib = (value: number) => `${value.toFixed(1)} MiB`;

/** Renames `conversation` RENAMES times (after one warm-up); answers the latencies and how many fell back. */
async function renameLatencies(service: Service, conversation: string, warnings: string[]) {
  await service.renameConversation(conversation); // warm-up: the embedded summarizer's first use loads its NLP model
  warnings.length = 0;
  const latencies: number[] = [];
  for (let i = 0; i < RENAMES; i++) {
    const started = performance.now();
    await service.renameConversation(conversation);
    latencies.push(performance.now() - started);
  }
  return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), fallbacks: warnings.length };
}

async function conversationOn(service: Service, model: string) {
  return service.createConversation({
    type: 'COPILOT',
    model: { id: model },
    messages: [
      { role: 'USER', fragment: { string: { raw: 'How do I retry a flaky payment API in TypeScript without hammering it?' } } },
      {
        role: 'ASSISTANT',
        fragment: {
          string: { raw: 'Use exponential backoff with full jitter, cap the attempts, and make the call idempotent with a key.' },
        },
      },
    ],
  });
}

async function benchGguf(label: string, gguf: TinyGgufOptions, dataDir: string, llama: ModelRuntime) {
  const warnings: string[] = [];
  const service = await createService({ dataDir, runtimes: [llama], logger: { warn: (message) => warnings.push(message) } });
  try {
    const model = await service.createModel({
      version: '1',
      created: { value: '2026-01-01T00:00:00.000Z' },
      name: label,
      cloud: false,
      type: 'SPEED',
      usage: 'CODE_CONVERSATION',
      unique: label,
    });
    const folder = cacheFolderOf(path.join(dataDir, 'models'), model.id);
    await mkdir(folder, { recursive: true });
    await writeTinyGguf(path.join(folder, 'model.gguf'), gguf);
    const conversation = await conversationOn(service, model.id);
    // The embedded summarizer writes when the model's answer is unusable: its NLP model is loaded
    // first, so that its memory is not counted as the model's.
    const plain = await service.createConversation({
      type: 'COPILOT',
      messages: [{ role: 'USER', fragment: { string: { raw: 'Warm up the embedded summarizer.' } } }],
    });
    await service.renameConversation(plain.id);
    const before = rssMiB();
    let started = performance.now();
    await service.loadModel(model.id);
    const load = performance.now() - started;
    const renames = await renameLatencies(service, conversation.id, warnings);
    const loaded = rssMiB();
    started = performance.now();
    await service.unloadModel(model.id);
    const unload = performance.now() - started;
    const after = rssMiB();
    return { label, load, unload, ...renames, before, loaded, after };
  } finally {
    await service.close();
  }
}

async function benchOpenAi(dataDir: string) {
  const server = await startOpenAiServer(['bench-model'], () => 'Retrying flaky payment calls');
  const warnings: string[] = [];
  const service = await createService({
    dataDir,
    runtimes: [createOpenAiCompatibleRuntime({ baseUrl: server.baseUrl })],
    logger: { warn: (message) => warnings.push(message) },
  });
  try {
    const conversation = await conversationOn(service, 'openai:bench-model');
    return await renameLatencies(service, conversation.id, warnings);
  } finally {
    await service.close();
    await server.close();
  }
}

const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-models-'));
try {
  const llama = createLlamaCppRuntime({ cacheRoot: path.join(root, 'llama', 'models'), threads: THREADS, contextSize: 2_048 });
  // The first load also starts node-llama-cpp's backend (on Linux it first tries its binary in a
  // child process): measured apart, on a throwaway model, so the loads below are the models' own.
  const warmUp = {
    id: 'warm-up',
    version: '1',
    created: { value: '2026-01-01T00:00:00.000Z' },
    name: 'warm-up',
    cloud: false,
    type: 'SPEED',
    usage: 'CODE_CONVERSATION',
  };
  await mkdir(cacheFolderOf(path.join(root, 'llama', 'models'), warmUp.id), { recursive: true });
  await writeTinyGguf(path.join(cacheFolderOf(path.join(root, 'llama', 'models'), warmUp.id), 'model.gguf'));
  const rssBeforeBackend = rssMiB();
  const started = performance.now();
  await llama.load!(warmUp);
  const backendStart = performance.now() - started;
  // One chat compiles the generation code paths (JS and native), which then stay.
  await llama.chat(warmUp, [{ role: 'user', content: 'Warm up.' }], { maxTokens: 4, signal: AbortSignal.timeout(60_000) });
  await llama.unload!(warmUp);
  const rssBackend = rssMiB();

  const rows = [
    await benchGguf('tiny-random-llama', {}, path.join(root, 'llama'), llama),
    await benchGguf('heavier-random-llama', { embedding: 256, extraTokens: 16_000 }, path.join(root, 'llama'), llama),
  ];
  const openai = await benchOpenAi(path.join(root, 'openai'));

  console.log(
    `bench:models, ${RENAMES} renames per subject, ${THREADS} thread(s), Node ${process.version}, ${process.platform}-${process.arch}`,
  );
  console.log(
    `node-llama-cpp backend start (first load, tiny model): ${ms(backendStart)}; RSS ${mib(rssBeforeBackend)} → ${mib(rssBackend)} with the backend started, one chat run, and no model loaded`,
  );
  console.log('');
  console.log('| runtime, model | load | unload | rename p50 | rename p95 | fallbacks | RSS before load | loaded | after unload |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| llama-cpp, ${row.label} | ${ms(row.load)} | ${ms(row.unload)} | ${ms(row.p50)} | ${ms(row.p95)} | ${row.fallbacks}/${RENAMES} | ` +
        `${mib(row.before)} | ${mib(row.loaded)} (+${(row.loaded - row.before).toFixed(1)}) | ${mib(row.after)} (${(row.loaded - row.after).toFixed(1)} given back) |`,
    );
  }
  console.log(
    `| openai-compatible, local fake server | – | – | ${ms(openai.p50)} | ${ms(openai.p95)} | ${openai.fallbacks}/${RENAMES} | – | – | – |`,
  );
  console.log('');
  console.log(
    'fallbacks: renames whose model answer was unusable (random weights), written by the embedded summarizer instead; their latency includes both.',
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
