/**
 * The in-process GGUF runtime on node-llama-cpp, against tiny llama models generated here with
 * random weights (they answer gibberish, quickly): load → generate → unload with the memory given
 * back, the keep-alive, the cap on loaded models, the busy queue, partial files never loaded, the
 * error without node-llama-cpp, and a rename through the service. When node-llama-cpp's prebuilt
 * binary cannot load on this machine, the tests that need it are skipped with the reason printed.
 */
import { spawn } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createService } from '../../src/index.js';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import type { ChatMessage, ModelRuntime } from '../../src/ports.js';
import type { ModelRecord } from '../../src/records.js';
import { createLlamaCppRuntime, type LlamaCppRuntimeOptions } from '../../src/runtimes/llama-cpp.js';
import { createModelPool } from '../../src/runtimes/model-pool.js';
import { compiledScript } from '../helpers/compiled-sources.js';
import { rssMiB } from '../helpers/memory.js';
import { childProcessIds, isRunning, rssMiBOf } from '../helpers/processes.js';
import { llamaCppUnmet, needs } from '../helpers/requirements.js';
import { said, seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { type TinyGgufOptions, writeTinyGguf } from '../helpers/tiny-gguf.js';

/** Why node-llama-cpp cannot run a model here, or undefined when it can. */
const cannotRun = await llamaCppUnmet();

const root = await tempDir('cms-llama-');
const cacheRoot = path.join(root, 'models');
const runtimes: ModelRuntime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.unloadAll?.();
});

/**
 * The runner compiled once for the run: a runner started through tsx takes twice the time and CPU
 * to start (test/helpers/compiled-sources.ts). The runner found beside the sources, through tsx,
 * is the one of the test of a script that exits.
 */
const runnerScript = compiledScript('src/runtimes/llama-runner.ts');

/** A runtime on the test cache, one thread, unloaded after the file. */
function runtime(options: Partial<LlamaCppRuntimeOptions> = {}) {
  const created = createLlamaCppRuntime({ cacheRoot, threads: 1, contextSize: 2_048, runnerScript, ...options });
  runtimes.push(created);
  return created;
}

/** A model record whose cache folder holds a generated GGUF. */
async function modelWithGguf(id: string, gguf: TinyGgufOptions = {}, fileName = 'model.gguf'): Promise<ModelRecord> {
  const folder = cacheFolderOf(cacheRoot, id);
  await mkdir(folder, { recursive: true });
  await writeTinyGguf(path.join(folder, fileName), gguf);
  return {
    id,
    version: '1',
    created: { value: '2026-01-01T00:00:00.000Z' },
    name: id,
    cloud: false,
    type: 'SPEED',
    usage: 'CODE_CONVERSATION',
    custom: true,
  };
}

const ask: ChatMessage[] = [
  { role: 'system', content: 'You name conversations.' },
  { role: 'user', content: 'The conversation:\n\nUser: How do I retry a flaky payment API?\n\nIts title:' },
];
const chatOptions = (maxTokens = 8) => ({ maxTokens, signal: AbortSignal.timeout(20_000) });
// The longest text one token of the generated vocabulary decodes to (`▁assistant`).
const LONGEST_TOKEN_CHARS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('without a model running', () => {
  it('offers no models of its own and accepts only a model whose folder holds a complete .gguf', async () => {
    const llama = runtime();
    expect(await llama.models()).toEqual([]);
    const id = 'partial-only';
    const folder = cacheFolderOf(cacheRoot, id);
    await mkdir(folder, { recursive: true });
    await writeTinyGguf(path.join(folder, 'model.gguf.partial'));
    const model = { ...(await modelWithGguf('unused')), id };
    expect(await llama.accepts(model)).toBe(false);
    await expect(llama.load!(model)).rejects.toThrow(/no complete \.gguf file/);
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(/no complete \.gguf file/);
    expect(llama.isLoaded!(model)).toBe(false);
    // The download finishes: renamed into place, it counts.
    await rename(path.join(folder, 'model.gguf.partial'), path.join(folder, 'model.gguf'));
    expect(await llama.accepts(model)).toBe(true);
  });

  it('accepts a split model only once every shard is there', async () => {
    const llama = runtime();
    const model = { ...(await modelWithGguf('unused-2')), id: 'split' };
    const folder = cacheFolderOf(cacheRoot, model.id);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'm-00001-of-00002.gguf'), 'GGUF');
    await writeFile(path.join(folder, 'm-00002-of-00002.gguf.partial'), 'GGUF');
    expect(await llama.accepts(model)).toBe(false);
    await rename(path.join(folder, 'm-00002-of-00002.gguf.partial'), path.join(folder, 'm-00002-of-00002.gguf'));
    expect(await llama.accepts(model)).toBe(true);
  });

  it('without node-llama-cpp, still accepts the model, and using it says how to install node-llama-cpp', async () => {
    // The runner imports this module instead of node-llama-cpp: as on a machine without it.
    const llama = runtime({ llamaModule: 'node-llama-cpp-not-installed' });
    const model = await modelWithGguf('no-library');
    expect(await llama.accepts(model)).toBe(true);
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(/npm install node-llama-cpp/);
    await expect(llama.load!(model)).rejects.toThrow(/npm install node-llama-cpp/);
    expect(llama.isLoaded!(model)).toBe(false);
  });
});

describe('the memory policy, with fake models', () => {
  /** A pool whose models record their loads and disposals in `events`. */
  function fakePool(options: { maxLoaded?: number; maxQueue?: number; keepAliveMs?: number } = {}) {
    const events: string[] = [];
    const pool = createModelPool<{ dispose(): Promise<void> }>({ keepAliveMs: 60_000, maxLoaded: 1, maxQueue: 4, ...options });
    const load = (id: string) => async () => {
      events.push(`load ${id}`);
      return { dispose: async () => void events.push(`free ${id}`) };
    };
    return { pool, events, load };
  }
  const never = new AbortController().signal;

  it('when every loaded model is generating, another waits for one to finish, which is then freed before it loads', async () => {
    const { pool, events, load } = fakePool();
    let finish!: () => void;
    const a = pool.use(
      'a',
      load('a'),
      () => new Promise<void>((resolve) => (finish = resolve)).then(() => void events.push('a done')),
      never,
    );
    await sleep(10);
    const b = pool.use('b', load('b'), async () => void events.push('b ran'), never);
    await sleep(10);
    expect(events).toEqual(['load a']);
    finish();
    await Promise.all([a, b]);
    expect(events).toEqual(['load a', 'a done', 'free a', 'load b', 'b ran']);
  });

  it('forgets a model that failed to load, and tries again on the next use', async () => {
    const { pool, load } = fakePool();
    await expect(
      pool.use(
        'a',
        () => Promise.reject(new Error('corrupt file')),
        async () => 1,
        never,
      ),
    ).rejects.toThrow('corrupt file');
    expect(pool.get('a')).toBeUndefined();
    expect(await pool.use('a', load('a'), async () => 2, never)).toBe(2);
  });

  it('frees a model that finishes loading after it was unloaded', async () => {
    const { pool, events } = fakePool();
    let loaded!: (model: { dispose(): Promise<void> }) => void;
    const loading = pool.load('a', () => new Promise((resolve) => (loaded = resolve)));
    const unloaded = pool.unload('a');
    loaded({ dispose: async () => void events.push('free a') });
    await expect(loading).rejects.toThrow(/unloaded while it loaded/);
    expect(await unloaded).toBe(true);
    expect(events).toEqual(['free a']);
    expect(pool.get('a')).toBeUndefined();
  });

  it('restarts the keep-alive with each use, and frees the model once idle that long', async () => {
    // A clock the test moves (the pool's timers and Date.now): to the millisecond, however busy the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const { pool, events, load } = fakePool({ keepAliveMs: 300 });
    await pool.load('a', load('a'));
    await vi.advanceTimersByTimeAsync(200);
    await pool.use('a', load('a'), async () => undefined, never);
    await vi.advanceTimersByTimeAsync(299);
    expect(events).toEqual(['load a']); // 499 ms after the load, 299 after the last use
    await vi.advanceTimersByTimeAsync(1);
    expect(events).toEqual(['load a', 'free a']);
  });
});

describe('running a tiny GGUF model', needs(cannotRun), () => {
  it('loads the model in a runner process of its own, generates within maxTokens through the chat template, and unloading ends the runner', async () => {
    const llama = runtime();
    // Heavier (36 MB of weights, a 16k vocabulary): its memory stands out of the noise.
    const model = await modelWithGguf('heavy', { embedding: 256, extraTokens: 16_000 });
    const before = rssMiB();
    const childrenBefore = new Set(childProcessIds());
    const started = performance.now();
    await llama.load!(model);
    const loadMs = performance.now() - started;
    expect(llama.isLoaded!(model)).toBe(true);
    expect(llama.contextTokens!(model)).toBe(2_048);
    const answer = await llama.chat(model, ask, chatOptions(12));
    expect(typeof answer).toBe('string');
    expect(answer.length).toBeLessThanOrEqual(12 * LONGEST_TOKEN_CHARS);
    const runners = childProcessIds().filter((pid) => !childrenBefore.has(pid));
    expect(runners).toHaveLength(1);
    const runnerRss = rssMiBOf(runners[0]!)!;
    const service = rssMiB();
    expect(await llama.unload!(model)).toBe(true);
    expect(llama.isLoaded!(model)).toBe(false);
    console.log(
      `llama-cpp memory (RSS, MiB): the runner holding the model ${runnerRss.toFixed(1)}; this process ${before.toFixed(1)} before the load, ` +
        `${service.toFixed(1)} with the model loaded (${(service - before).toFixed(1)}); load ${loadMs.toFixed(0)} ms; answer ${JSON.stringify(answer)}`,
    );
    // The runner holds the model's 36 MB of weights (and node-llama-cpp); this process holds neither.
    expect(runnerRss).toBeGreaterThan(36);
    // Unloading ends the runner: every byte it held goes back to the system.
    expect(rssMiBOf(runners[0]!)).toBeUndefined();
    expect(childProcessIds()).not.toContain(runners[0]);
    // Unloading what is not loaded is not an error.
    expect(await llama.unload!(model)).toBe(false);
  });

  it('unloads a model after the idle keep-alive, each use restarting it', async () => {
    const llama = runtime({ keepAliveMs: 400 });
    const model = await modelWithGguf('keep-alive');
    // The runner is real; the keep-alive's clock (setTimeout) is one the test moves, so how long a
    // generation takes on a busy machine does not count.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    await llama.chat(model, ask, chatOptions());
    await vi.advanceTimersByTimeAsync(250);
    expect(llama.isLoaded!(model)).toBe(true);
    await llama.chat(model, ask, chatOptions());
    await vi.advanceTimersByTimeAsync(399);
    expect(llama.isLoaded!(model)).toBe(true); // 649 ms after the first use, 399 after the last
    await vi.advanceTimersByTimeAsync(1);
    expect(llama.isLoaded!(model)).toBe(false);
    // It loads again on the next use.
    await llama.chat(model, ask, chatOptions());
    expect(llama.isLoaded!(model)).toBe(true);
  });

  it('holds at most maxLoadedModels: loading another unloads the least recently used', async () => {
    const llama = runtime({ maxLoadedModels: 1 });
    const [a, b] = [await modelWithGguf('cap-a'), await modelWithGguf('cap-b', { seed: 2 })];
    await llama.chat(a, ask, chatOptions());
    expect(llama.isLoaded!(a)).toBe(true);
    await llama.chat(b, ask, chatOptions());
    expect([llama.isLoaded!(a), llama.isLoaded!(b)]).toEqual([false, true]);
    await llama.load!(a);
    expect([llama.isLoaded!(a), llama.isLoaded!(b)]).toEqual([true, false]);
    // Loading a loaded model is a no-op.
    await llama.load!(a);
    expect(await llama.unloadAll!()).toEqual(['cap-a']);
    expect(llama.isLoaded!(a)).toBe(false);
  });

  it('runs one generation at a time per model; past maxQueue waiting, a chat is refused at once as busy', async () => {
    const llama = runtime({ maxQueue: 1 });
    const model = await modelWithGguf('busy');
    const chats = [0, 1, 2].map(() => llama.chat(model, ask, chatOptions()));
    const results = await Promise.allSettled(chats);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const refused = (results[2] as PromiseRejectedResult).reason as Error & { code?: string };
    expect(refused.code).toBe('BUSY');
    expect(refused.message).toMatch(/busy.*retry/i);

    const noQueue = runtime({ maxQueue: 0 });
    const pair = await Promise.allSettled([noQueue.chat(model, ask, chatOptions()), noQueue.chat(model, ask, chatOptions())]);
    expect(pair.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    // Once the model is free again, it answers.
    expect(typeof (await noQueue.chat(model, ask, chatOptions()))).toBe('string');
  });

  it('honours the abort signal, waiting or generating; unloading ends a generation', async () => {
    const llama = runtime({ maxQueue: 1 });
    const model = await modelWithGguf('abort');
    await llama.load!(model);
    const controller = new AbortController();
    const aborted = llama.chat(model, ask, { maxTokens: 1_000, signal: controller.signal });
    controller.abort(new Error('timeout'));
    await expect(aborted).rejects.toThrow(/did not answer in time/);

    // Given up while waiting behind another generation: refused, and its place in the queue freed.
    const waiting = new AbortController();
    const first = llama.chat(model, ask, chatOptions());
    const second = llama.chat(model, ask, { maxTokens: 8, signal: waiting.signal });
    waiting.abort(new Error('timeout'));
    await expect(second).rejects.toThrow(/did not answer in time/);
    const third = llama.chat(model, ask, chatOptions());
    expect(typeof (await first)).toBe('string');
    expect(typeof (await third)).toBe('string');

    // Unloaded under a generation: the generation ends, then the model is freed.
    const cut = expect(llama.chat(model, ask, { maxTokens: 1_000, signal: AbortSignal.timeout(20_000) })).rejects.toThrow(/was unloaded/);
    expect(await llama.unload!(model)).toBe(true);
    await cut;
    expect(llama.isLoaded!(model)).toBe(false);
    // And it loads again on the next use.
    expect(typeof (await llama.chat(model, ask, chatOptions()))).toBe('string');
  });

  it('answers a prompt longer than its context (shortened to fit, its start and end kept)', async () => {
    const llama = runtime({ contextSize: 256 });
    const model = await modelWithGguf('small-context');
    const long = `The conversation:\n\nUser: ${'How do I retry a flaky payment API? '.repeat(150)}\n\nIts title:`;
    const answer = await llama.chat(model, [ask[0]!, { role: 'user', content: long }], chatOptions());
    expect(typeof answer).toBe('string');
    expect(llama.contextTokens!(model)).toBe(256);
  });

  it('does not keep a script alive: one that used a model and returns exits at once, and its runner ends with it', async () => {
    const script = path.join(import.meta.dirname, 'fixtures', 'use-model-and-exit.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, await tempDir('cms-llama-exit-')], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    // The keep-alive is 5 minutes: a script held by its idle runner would still be running at 30 s.
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`still running after 30 s:\n${out}`));
      }, 30_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, out).toBe(0);
    const runner = Number(/^runner (\d+)$/m.exec(out)?.[1]);
    expect(runner, out).toBeGreaterThan(0);
    // It ends when its channel to the script closes (bounded wait).
    for (let i = 0; i < 100 && isRunning(runner); i++) await sleep(50);
    expect(isRunning(runner), `runner ${runner} still running; the script printed:\n${out}`).toBe(false);
  });

  it('renames through the service with a custom model whose GGUF is in its cache folder', async () => {
    const dataDir = await tempDir('cms-llama-service-');
    const llama = createLlamaCppRuntime({ cacheRoot: path.join(dataDir, 'models'), threads: 1, contextSize: 2_048, runnerScript });
    runtimes.push(llama);
    const chats: ChatMessage[][] = [];
    const counted: ModelRuntime = {
      ...llama,
      chat: (model, messages, options) => (chats.push([...messages]), llama.chat(model, messages, options)),
    };
    const warnings: string[] = [];
    const service = await createService({ dataDir, runtimes: [counted], logger: { warn: (message) => warnings.push(message) } });
    try {
      const model = await service.createModel(seededModel({ name: 'Tiny random llama', unique: 'tiny-random-llama' }));
      const folder = cacheFolderOf(path.join(dataDir, 'models'), model.id);
      await mkdir(folder, { recursive: true });
      await writeTinyGguf(path.join(folder, 'tiny.gguf'));
      const conversation = await service.createConversation({
        type: 'COPILOT',
        model: { id: model.id },
        messages: [
          said('USER', 'How do I retry a flaky payment API in TypeScript?'),
          said('ASSISTANT', 'Use exponential backoff with jitter and cap the attempts.'),
        ],
      });
      const renamed = await service.renameConversation(conversation.id);
      expect(chats).toHaveLength(1);
      expect(chats[0]![1]!.content).toContain('How do I retry a flaky payment API in TypeScript?');
      expect(renamed.name).toEqual(expect.any(String));
      expect(renamed.name!.length).toBeGreaterThan(0);
      // Random weights answer garbage: either it passed the cleaning, or the embedded summarizer wrote it, said so.
      if (warnings.length > 0) expect(warnings.join('\n')).toContain(model.id);
      console.log(
        `llama-cpp rename through the service: ${JSON.stringify(renamed.name)}${warnings.length ? ' (embedded summarizer fallback)' : ' (by the model)'}`,
      );
      expect((await service.getModel(model.id)).loaded).toBe(true);
      expect((await service.unloadModel(model.id)).loaded).toBe(false);
    } finally {
      await service.close();
    }
  });
});
