/**
 * `npm run bench:models`: what running models costs, and what a bad model costs, on this machine.
 *
 * - GGUF models in runner processes (the llama-cpp runtime, CPU) against the same models loaded in
 *   this process as the runtime did before runners (node-llama-cpp straight, `llama-engine.ts`), on
 *   random-weight llama models generated here: the tiny one of the tests (~0.1 MB) and a heavier one
 *   (~35 MB, a 16k vocabulary) whose memory stands out of the noise. For each: load time,
 *   first-token latency (a 1-token answer to a loaded model), RSS of the service's process and of
 *   the runner; then rename latency p50/p95 through the service.
 * - What a bad model file costs a rename: one the header check refuses (zero heads), one that
 *   aborts llama.cpp in its runner; the first rename and the next (the model marked failed).
 * - The OpenAI-compatible runtime against a local fake server that answers at once (what the
 *   service and HTTP add around a model), and one that answers 400 MiB (`model-bounds.ts`).
 *
 * The runners start from the built package (the script builds it first), as users' do: from the
 * sources each would start through tsx, about 2 s slower. Figures only, no assertions.
 * Env: BENCH_RENAMES=40 renames per subject, BENCH_THREADS=1.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createService, type Service } from '../src/index.js';
import { cacheFolderOf } from '../src/models/cache-folder.js';
import type { ChatMessage, ModelRuntime } from '../src/ports.js';
import type { ModelRecord } from '../src/records.js';
import type * as LlamaCppModule from '../src/runtimes/llama-cpp.js';
import { type LlamaEngine, startLlamaEngine } from '../src/runtimes/llama-engine.js';
import { createOpenAiCompatibleRuntime } from '../src/runtimes/openai-compatible.js';
import { rssMiB } from '../test/helpers/memory.js';
import { startOpenAiServer } from '../test/helpers/openai-server.js';
import { childProcessIds, rssMiBOf } from '../test/helpers/processes.js';
import { type TinyGgufOptions, writeTinyGguf } from '../test/helpers/tiny-gguf.js';
import { benchHugeAnswer, formatHugeAnswer } from './model-bounds.js';
import { percentile } from './stats.js';

const RENAMES = Number(process.env.BENCH_RENAMES ?? 40);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const CONTEXT = 2_048;

// A path in a variable: the type check runs before the build, and must not look for it.
const BUILT_RUNTIME = '../dist/runtimes/llama-cpp.js';
const { createLlamaCppRuntime } = (await import(BUILT_RUNTIME)) as typeof LlamaCppModule;

const ms = (value: number) => `${value.toFixed(1)} ms`;
const mib = (value: number) => `${value.toFixed(1)} MiB`;
const since = (started: number) => performance.now() - started;
const ask: ChatMessage[] = [{ role: 'user', content: 'Name this conversation: how do I retry a flaky payment API?' }];

const SUBJECTS: { label: string; gguf: TinyGgufOptions }[] = [
  { label: 'tiny-random-llama', gguf: {} },
  { label: 'heavier-random-llama', gguf: { embedding: 256, extraTokens: 16_000 } },
];

const modelRecord = (id: string): ModelRecord => ({
  id,
  version: '1',
  created: { value: '2026-01-01T00:00:00.000Z' },
  name: id,
  cloud: false,
  type: 'SPEED',
  usage: 'CODE_CONVERSATION',
});

/** A model's seed: the record without what the service gives a model (its id). */
const seedOf = ({ id: _id, ...seed }: ModelRecord) => seed;

async function writeModel(cacheRoot: string, id: string, gguf: TinyGgufOptions): Promise<string> {
  const folder = cacheFolderOf(cacheRoot, id);
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, 'model.gguf');
  await writeTinyGguf(file, gguf);
  return file;
}

/** Load, first token and memory of a model in a runner process. */
async function benchRunner(llama: ModelRuntime, model: ModelRecord) {
  const before = rssMiB();
  const children = new Set(childProcessIds());
  let started = performance.now();
  await llama.load!(model);
  const load = since(started);
  started = performance.now();
  await llama.chat(model, ask, { maxTokens: 1, signal: AbortSignal.timeout(60_000) });
  const firstToken = since(started);
  const runner = childProcessIds().find((pid) => !children.has(pid));
  const runnerRss = runner === undefined ? NaN : (rssMiBOf(runner) ?? NaN);
  const service = rssMiB();
  await llama.unload!(model);
  return { load, firstToken, serviceRise: service - before, runnerRss, runnerGone: runner !== undefined && rssMiBOf(runner) === undefined };
}

/** node-llama-cpp started in this process, once, as the runtime shared it before runners. */
async function startInProcess() {
  const before = rssMiB();
  const started = performance.now();
  const engine = await startLlamaEngine({ llamaModule: 'node-llama-cpp', gpu: false, threads: THREADS });
  return { engine, backend: since(started), backendRise: rssMiB() - before };
}

/** Load, first token and memory of a model in this process, as the runtime ran models before runners. */
async function benchInProcess(engine: LlamaEngine, file: string) {
  const before = rssMiB();
  let started = performance.now();
  const model = await engine.load(file, CONTEXT);
  const load = since(started);
  started = performance.now();
  await model.chat(ask, 1, AbortSignal.timeout(60_000));
  const firstToken = since(started);
  const loaded = rssMiB();
  await model.dispose();
  return { load, firstToken, modelRise: loaded - before, givenBack: loaded - rssMiB() };
}

/** Renames `conversation` RENAMES times (after one warm-up); answers the latencies and how many fell back. */
async function renameLatencies(service: Service, conversation: string, warnings: string[], times = RENAMES) {
  await service.renameConversation(conversation); // warm-up: the embedded summarizer's first use loads its NLP model
  warnings.length = 0;
  const latencies: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await service.renameConversation(conversation);
    latencies.push(since(started));
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

/** A service on `dataDir` with the llama-cpp runtime, and a custom model whose cache holds `gguf`. */
async function serviceWithModel(dataDir: string, label: string, gguf: TinyGgufOptions) {
  const warnings: string[] = [];
  const llama = createLlamaCppRuntime({ cacheRoot: path.join(dataDir, 'models'), threads: THREADS, contextSize: CONTEXT });
  const service = await createService({ dataDir, runtimes: [llama], logger: { warn: (message) => warnings.push(message) } });
  const model = await service.createModel({ ...seedOf(modelRecord(label)), type: 'SPEED', usage: 'CODE_CONVERSATION', unique: label });
  await writeModel(path.join(dataDir, 'models'), model.id, gguf);
  const conversation = await conversationOn(service, model.id);
  return { service, llama, model, conversation, warnings };
}

async function benchRenames(dataDir: string, label: string, gguf: TinyGgufOptions) {
  const { service, conversation, model, warnings } = await serviceWithModel(dataDir, label, gguf);
  try {
    await service.loadModel(model.id);
    return await renameLatencies(service, conversation.id, warnings);
  } finally {
    await service.unloadModel(model.id);
    await service.close();
  }
}

/** The first rename with a bad model file, and the next one (the model then marked failed). */
async function benchBadModel(dataDir: string, label: string, gguf: TinyGgufOptions) {
  const { service, conversation, warnings } = await serviceWithModel(dataDir, label, gguf);
  try {
    const plain = await conversationOn(service, 'no-such-model');
    await service.renameConversation(plain.id); // the embedded summarizer's NLP model, loaded apart
    let started = performance.now();
    await service.renameConversation(conversation.id);
    const first = since(started);
    started = performance.now();
    await service.renameConversation(conversation.id);
    const next = since(started);
    // What the first rename logged, without the writer's preamble.
    return { first, next, reason: (warnings[0] ?? '').replace(/^.*? could not write the title: /, '') };
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
  const cacheRoot = path.join(root, 'llama', 'models');
  const llama = createLlamaCppRuntime({ cacheRoot, threads: THREADS, contextSize: CONTEXT });
  // One throwaway load first: the OS caches node-llama-cpp's files, as it has for a user's second start.
  await writeModel(cacheRoot, 'warm-up', {});
  await benchRunner(llama, modelRecord('warm-up'));
  const runners = [];
  for (const { label, gguf } of SUBJECTS) {
    await writeModel(cacheRoot, label, gguf);
    runners.push({ label, ...(await benchRunner(llama, modelRecord(label))) });
  }
  const renames = [];
  for (const { label, gguf } of SUBJECTS)
    renames.push({ label, ...(await benchRenames(path.join(root, `renames-${label}`), label, gguf)) });
  const badModels = [
    {
      label: 'zero heads (refused by the header check)',
      ...(await benchBadModel(path.join(root, 'zero-heads'), 'zero-heads', { headCount: 0 })),
    },
    {
      label: 'aborts llama.cpp (I32 token embeddings)',
      ...(await benchBadModel(path.join(root, 'aborts'), 'aborts', { tensorTypes: { 'token_embd.weight': 26 } })),
    },
  ];
  const openai = await benchOpenAi(path.join(root, 'openai'));
  const hugeAnswer = await benchHugeAnswer();
  // Last: loading node-llama-cpp into this process stays for the rest of it.
  const backend = await startInProcess();
  // One throwaway load, as for the runners.
  await benchInProcess(backend.engine, path.join(cacheFolderOf(cacheRoot, 'warm-up'), 'model.gguf'));
  const inProcess: ({ label: string } & Awaited<ReturnType<typeof benchInProcess>>)[] = [];
  for (const { label } of SUBJECTS)
    inProcess.push({ label, ...(await benchInProcess(backend.engine, path.join(cacheFolderOf(cacheRoot, label), 'model.gguf'))) });

  console.log(
    `bench:models, ${RENAMES} renames per subject, ${THREADS} thread(s), Node ${process.version}, ${process.platform}-${process.arch}`,
  );
  console.log('');
  console.log('GGUF models: in a runner process (now) against in this process (before runners)');
  console.log('| model | where | load | first token | service RSS rise | runner RSS |');
  console.log('|---|---|---|---|---|---|');
  for (const [i, runner] of runners.entries()) {
    const before = inProcess[i]!;
    console.log(
      `| ${runner.label} | runner | ${ms(runner.load)} | ${ms(runner.firstToken)} | ${mib(runner.serviceRise)} | ${mib(runner.runnerRss)}${runner.runnerGone ? ', gone after unload' : ', STILL THERE after unload'} |`,
    );
    console.log(
      `| ${before.label} | in-process | ${ms(before.load)} | ${ms(before.firstToken)} | ${mib(before.modelRise)} (${mib(before.givenBack)} given back at unload) | – |`,
    );
  }
  console.log(
    `in-process, once per process: node-llama-cpp's backend start ${ms(backend.backend)}, ${mib(backend.backendRise)} of RSS that stays. ` +
      `A runner pays its own start on each load: load ÷ in-process load ${runners.map((runner, i) => `${(runner.load / inProcess[i]!.load).toFixed(1)}×`).join(', ')}; ` +
      `÷ (in-process load + backend start) ${runners.map((runner, i) => `${(runner.load / (inProcess[i]!.load + backend.backend)).toFixed(2)}×`).join(', ')}.`,
  );
  console.log('');
  console.log('| rename through the service | p50 | p95 | fallbacks |');
  console.log('|---|---|---|---|');
  for (const row of renames)
    console.log(`| llama-cpp runner, ${row.label} | ${ms(row.p50)} | ${ms(row.p95)} | ${row.fallbacks}/${RENAMES} |`);
  console.log(`| openai-compatible, local fake server | ${ms(openai.p50)} | ${ms(openai.p95)} | ${openai.fallbacks}/${RENAMES} |`);
  console.log('fallbacks: renames whose model answer was unusable (random weights), written by the embedded summarizer instead.');
  console.log('');
  console.log('| bad model file | first rename | next rename (marked failed) | logged |');
  console.log('|---|---|---|---|');
  for (const row of badModels) console.log(`| ${row.label} | ${ms(row.first)} | ${ms(row.next)} | ${row.reason.slice(0, 200)} |`);
  console.log('');
  console.log(formatHugeAnswer(hugeAnswer));
} finally {
  await rm(root, { recursive: true, force: true });
}
