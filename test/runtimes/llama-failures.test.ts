/**
 * A GGUF model that cannot run never takes the service down. Malformed files the header check
 * catches are refused before any runner starts, naming the field; a file that passes it but aborts
 * llama.cpp natively ends its runner process, not this one; a runner killed mid-generation is
 * reported with its signal. Each marks the model failed: it is not loaded again on every request
 * until its files change or it is loaded explicitly, and the service's answers show why. Skipped,
 * saying why, where node-llama-cpp's prebuilt binary cannot run.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createService } from '../../src/index.js';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import type { ChatMessage, ModelRuntime } from '../../src/ports.js';
import type { ModelRecord } from '../../src/records.js';
import { createLlamaCppRuntime } from '../../src/runtimes/llama-cpp.js';
import { RunnerExitedError, startRunner } from '../../src/runtimes/runner-process.js';
import { compiledScript } from '../helpers/compiled-sources.js';
import { childProcessIds } from '../helpers/processes.js';
import { llamaCppUnmet, needs } from '../helpers/requirements.js';
import { said, seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { type TinyGgufOptions, writeTinyGguf } from '../helpers/tiny-gguf.js';

/** Why node-llama-cpp cannot run a model here, or undefined when it can. */
const cannotRun = await llamaCppUnmet();

/** Zero attention heads: llama.cpp's loader asserts, aborting its process; the header check refuses it first. */
const ZERO_HEADS: TinyGgufOptions = { headCount: 0 };
/** Token embeddings of a type no backend computes with: every header check passes, then llama.cpp aborts. */
const ABORTS_LLAMA_CPP: TinyGgufOptions = { tensorTypes: { 'token_embd.weight': 26 } };

const root = await tempDir('cms-llama-failures-');
const cacheRoot = path.join(root, 'models');
const runtimes: ModelRuntime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.unloadAll?.();
});

/** The runner compiled once for the run: through tsx it takes twice as long to start (test/helpers/compiled-sources.ts). */
const runnerScript = compiledScript('src/runtimes/llama-runner.ts');

function runtime(contextSize = 512) {
  const created = createLlamaCppRuntime({ cacheRoot, threads: 1, contextSize, runnerScript });
  runtimes.push(created);
  return created;
}

/** A model record whose cache folder (under `under`) holds a GGUF written with `gguf`. */
async function modelWithGguf(id: string, gguf: TinyGgufOptions, under = cacheRoot): Promise<ModelRecord> {
  const folder = cacheFolderOf(under, id);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await writeTinyGguf(path.join(folder, 'model.gguf'), gguf);
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

const ask: ChatMessage[] = [{ role: 'user', content: 'Name this: how do I retry a flaky payment API?' }];
const chatOptions = (maxTokens = 8) => ({ maxTokens, signal: AbortSignal.timeout(20_000) });

describe('a malformed file the header check catches', () => {
  it('is refused before any runner starts, naming the field; the model is marked failed until its file changes', async () => {
    const llama = runtime();
    const model = await modelWithGguf('zero-heads', ZERO_HEADS);
    const children = childProcessIds();
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(
      /zero-heads could not be loaded: its file is malformed: .*llama\.attention\.head_count is 0; it must be at least 1/,
    );
    expect(childProcessIds()).toEqual(children);
    expect(await llama.loadFailure!(model)).toEqual({ reason: expect.stringMatching(/head_count is 0/), at: expect.any(String) });
    // The next request is answered from the mark, without reading the file again.
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(/failed to load at .*not loaded again until its files change/);
    // Loaded by name, it is tried again, and the field comes with the error.
    await expect(llama.load!(model)).rejects.toMatchObject({ field: 'llama.attention.head_count' });
    // A new file clears the mark.
    await modelWithGguf('zero-heads', {});
    expect(await llama.loadFailure!(model)).toBeUndefined();
  });
});

describe('a runner that dies', needs(cannotRun), () => {
  it('a native abort inside llama.cpp ends the runner process, not this one, and says how it ended', async () => {
    const model = await modelWithGguf('native-abort', ZERO_HEADS);
    const runner = startRunner(runnerScript);
    const file = path.join(cacheFolderOf(cacheRoot, model.id), 'model.gguf');
    // Straight to the runner, past the header check: what the check spares the runner from.
    const failure = await runner
      .call({ method: 'load', file, contextSize: 512, engine: { llamaModule: 'node-llama-cpp', gpu: false, threads: 1 } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(RunnerExitedError);
    expect((failure as RunnerExitedError).exit.signal).toBe('SIGABRT');
    expect((failure as Error).message).toMatch(/its runner process was killed by SIGABRT: .*GGML_ASSERT/);
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('a file that passes the header check but aborts llama.cpp fails its load with the cause, and is not loaded again for each request', async () => {
    const llama = runtime();
    const model = await modelWithGguf('aborts-llama-cpp', ABORTS_LLAMA_CPP);
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(
      /aborts-llama-cpp could not be loaded: its runner process was killed by SIGABRT: .*GGML_ASSERT/,
    );
    expect(llama.isLoaded!(model)).toBe(false);
    expect((await llama.loadFailure!(model))?.reason).toMatch(/SIGABRT/);
    const children = childProcessIds();
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(/failed to load at/);
    expect(childProcessIds()).toEqual(children);
  });

  it('a runner killed while it generates fails that generation with the signal, frees its place, and marks the model until loaded by name', async () => {
    const llama = runtime(2_048);
    // Heavier, with room for a long answer: it is still generating when the runner is killed.
    const model = await modelWithGguf('killed', { embedding: 256, extraTokens: 16_000 });
    const before = new Set(childProcessIds());
    await llama.load!(model);
    // The runner: the one child process that appeared with the load.
    const [runner, ...others] = childProcessIds().filter((pid) => !before.has(pid));
    expect(runner).toBeDefined();
    expect(others).toEqual([]);
    const generating = llama.chat(model, ask, chatOptions(2_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(runner!, 'SIGKILL');
    await expect(generating).rejects.toThrow(/killed stopped while it generated: its runner process was killed by SIGKILL/);
    expect(llama.isLoaded!(model)).toBe(false);
    expect((await llama.loadFailure!(model))?.reason).toMatch(/SIGKILL/);
    await expect(llama.chat(model, ask, chatOptions())).rejects.toThrow(/failed to load at/);
    // Loaded by name, it runs again.
    await llama.load!(model);
    expect(await llama.loadFailure!(model)).toBeUndefined();
    expect(typeof (await llama.chat(model, ask, chatOptions()))).toBe('string');
  });

  it('through the service: a rename falls back to the embedded summarizer, the model answer shows loadFailure, a load by name answers 422 naming the field', async () => {
    const dataDir = await tempDir('cms-llama-failures-service-');
    const llama = createLlamaCppRuntime({ cacheRoot: path.join(dataDir, 'models'), threads: 1, contextSize: 512, runnerScript });
    runtimes.push(llama);
    const warnings: string[] = [];
    const service = await createService({ dataDir, runtimes: [llama], logger: { warn: (message) => warnings.push(message) } });
    const router = createHonoRouter(service);
    try {
      const model = await service.createModel(seededModel({ name: 'Crashes llama.cpp', unique: 'crashes-llama-cpp' }));
      await modelWithGguf(model.id, ABORTS_LLAMA_CPP, path.join(dataDir, 'models'));
      const conversation = await service.createConversation({
        type: 'COPILOT',
        model: { id: model.id },
        messages: [said('USER', 'How do I retry a flaky payment API in TypeScript?'), said('ASSISTANT', 'Use exponential backoff.')],
      });
      const renamed = await router.request(`/conversation/${conversation.id}/rename`, { method: 'POST' });
      expect(renamed.status).toBe(200);
      expect(((await renamed.json()) as { name: string }).name).toMatch(/retry/i);
      expect(warnings.join('\n')).toMatch(new RegExp(`${model.id} could not write the title: .*SIGABRT.*embedded summarizer wrote it`));
      const answer = (await (await router.request(`/model/${model.id}`)).json()) as { loaded: boolean; loadFailure?: { reason: string } };
      expect(answer.loaded).toBe(false);
      expect(answer.loadFailure?.reason).toMatch(/killed by SIGABRT/);

      await modelWithGguf(model.id, ZERO_HEADS, path.join(dataDir, 'models'));
      const load = await router.request(`/model/${model.id}/load`, { method: 'POST' });
      expect(load.status).toBe(422);
      const { error } = (await load.json()) as { error: { code: string; message: string; issues: { path: string[] }[] } };
      expect(error.code).toBe('UNPROCESSABLE');
      expect(error.issues[0]!.path).toEqual(['llama.attention.head_count']);
    } finally {
      await service.close();
    }
  });
});
