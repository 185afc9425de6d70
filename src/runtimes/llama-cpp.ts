import { stat } from 'node:fs/promises';
import { cacheFolderOf } from '../models/cache-folder.js';
import type { ChatMessage, ChatOptions, ModelLoadFailure, ModelRuntime } from '../ports.js';
import type { ModelRecord } from '../records.js';
import { findGguf } from './gguf-files.js';
import { checkGgufFile, GgufFileError } from './gguf-header.js';
import { createModelPool } from './model-pool.js';
import { type Runner, RunnerCallError, RunnerExitedError, startRunner } from './runner-process.js';

export { GgufFileError } from './gguf-header.js';
export { ModelBusyError } from './model-pool.js';

/** Options of {@link createLlamaCppRuntime}. */
export interface LlamaCppRuntimeOptions {
  /** The models' cache root (`DATA_DIR/models`): a model runs here when its folder in it holds a `.gguf` file. */
  readonly cacheRoot: string;
  /** CPU threads a generation uses. Default: node-llama-cpp's choice (the cores useful for math). */
  readonly threads?: number;
  /**
   * `false` (the default) runs on the CPU only. `'auto'` uses a GPU (Metal, CUDA, Vulkan) when
   * node-llama-cpp has a prebuilt binary for it that loads here, else the CPU.
   */
  readonly gpu?: false | 'auto';
  /** Idle time after which a loaded model is unloaded (its runner ends); each use restarts it. Default 5 minutes. */
  readonly keepAliveMs?: number;
  /** Models held in memory at once; the least recently used is unloaded to make room. Default 1. */
  readonly maxLoadedModels?: number;
  /**
   * Generations that may wait for a model while it generates (it runs one at a time). Past it, a
   * chat rejects at once with a `ModelBusyError` (`code: 'BUSY'`). Default 4.
   */
  readonly maxQueue?: number;
  /** Tokens of context to allocate, at most the model's own. Default 4,096. */
  readonly contextSize?: number;
  /** The module runners import to run models. Default `node-llama-cpp` (tests name a missing one). */
  readonly llamaModule?: string;
  /**
   * The runner's script, run with Node in a process of its own for each loaded model. Default: the
   * `runtimes/llama-runner.js` this package ships. Set it when a bundler moved this module away
   * from the package's files (an Electron app's bundle: unpack that file from the archive and name it).
   */
  readonly runnerScript?: string;
}

/** A loaded model: the runner process that holds it. */
interface RunnerHandle {
  readonly runner: Runner;
  readonly contextSize: number;
  dispose(): Promise<void>;
}

/** A model that failed to load, and the files it failed with (size and time of change). */
interface RecordedFailure extends ModelLoadFailure {
  readonly files: string;
}

const DEFAULT_CONTEXT_SIZE = 4_096;

/**
 * A runtime that runs GGUF models on node-llama-cpp (llama.cpp), on the CPU by default, each loaded
 * model in a runner process of its own, as Ollama and LM Studio do: a native assert inside
 * llama.cpp, a crash or the kernel's OOM killer ends that runner, never the service. It runs any
 * model, custom or not, whose cache folder (`<cacheRoot>/<encoded id>/`) holds a complete `.gguf`
 * file; it lists none of its own. node-llama-cpp is an optional peer dependency, imported by the
 * runners: without it, using such a model rejects with how to install it.
 *
 * Before a runner is started, the file's header is checked (magic, version, fields that must be
 * positive, tensors inside the file): a malformed file is refused with a {@link GgufFileError}
 * naming the field. A model whose load fails, or whose runner dies under it, is marked failed: it is
 * not loaded again for each request (each one answers the recorded reason at once) until its files
 * change or it is loaded explicitly with `load`.
 *
 * Memory policy: a model is loaded on demand and unloaded (its runner ended, which gives back all
 * of its memory) after `keepAliveMs` idle; at most `maxLoadedModels` are held (the least recently
 * used makes room); one generation at a time per model, at most `maxQueue` waiting, the next one
 * refused at once as busy.
 */
export function createLlamaCppRuntime(options: LlamaCppRuntimeOptions): ModelRuntime {
  const pool = createModelPool<RunnerHandle>({
    keepAliveMs: options.keepAliveMs ?? 5 * 60_000,
    maxLoaded: options.maxLoadedModels ?? 1,
    maxQueue: options.maxQueue ?? 4,
  });
  // The context size each model got when it was last loaded: what to fit prompts to before it loads again.
  const contextSizes = new Map<string, number>();
  const failures = new Map<string, RecordedFailure>();

  /** The model's GGUF file, or an error saying there is none. */
  async function fileOf(model: ModelRecord): Promise<string> {
    const folder = cacheFolderOf(options.cacheRoot, model.id);
    const file = await findGguf(folder);
    if (!file) throw new Error(`Model ${model.id} has no complete .gguf file in ${folder}.`);
    return file;
  }

  /** The failure recorded for `model`, if its files are still the ones it failed with. */
  async function currentFailure(model: ModelRecord): Promise<RecordedFailure | undefined> {
    const failure = failures.get(model.id);
    if (!failure) return undefined;
    if (failure.files === (await filesStamp(options.cacheRoot, model.id))) return failure;
    failures.delete(model.id);
    return undefined;
  }

  async function recordFailure(model: ModelRecord, reason: string): Promise<void> {
    failures.set(model.id, { reason, at: new Date().toISOString(), files: await filesStamp(options.cacheRoot, model.id) });
  }

  async function load(model: ModelRecord): Promise<RunnerHandle> {
    const file = await fileOf(model);
    let runner: Runner | undefined;
    try {
      await checkGgufFile(file);
      runner = startRunner(options.runnerScript);
      const { contextSize } = await runner.call({
        method: 'load',
        file,
        contextSize: options.contextSize ?? DEFAULT_CONTEXT_SIZE,
        engine: {
          llamaModule: options.llamaModule ?? 'node-llama-cpp',
          gpu: options.gpu ?? false,
          ...(options.threads !== undefined ? { threads: options.threads } : {}),
        },
      });
      contextSizes.set(model.id, contextSize);
      const loaded = runner;
      // A runner that ends while it holds the model (a crash, the OOM killer) frees its place.
      void loaded.exited.then(() => {
        if (!loaded.stopping && pool.get(model.id)?.runner === loaded) void pool.unload(model.id);
      });
      return { runner: loaded, contextSize, dispose: () => loaded.stop() };
    } catch (error) {
      await runner?.stop();
      const reason = reasonOf(error);
      // node-llama-cpp missing is not the model's fault: installing it must work at once.
      if (!(error instanceof RunnerCallError && error.library)) await recordFailure(model, reason);
      throw Object.assign(new Error(`Model ${model.id} could not be loaded: ${reason}`, { cause: error }), fieldOf(error));
    }
  }

  async function generate(
    model: ModelRecord,
    handle: RunnerHandle,
    messages: readonly ChatMessage[],
    chat: ChatOptions,
    signal: AbortSignal,
  ) {
    try {
      return await handle.runner.call({ method: 'chat', messages, maxTokens: chat.maxTokens }, signal);
    } catch (error) {
      if (error instanceof RunnerExitedError && !handle.runner.stopping) {
        await recordFailure(model, reasonOf(error));
        throw new Error(`Model ${model.id} stopped while it generated: ${reasonOf(error)}`, { cause: error });
      }
      if (signal.aborted) {
        throw new Error(`Model ${model.id} ${chat.signal.aborted ? 'did not answer in time' : 'was unloaded'}.`, { cause: error });
      }
      throw new Error(`Model ${model.id} could not generate: ${(error as Error).message}`, { cause: error });
    }
  }

  return {
    name: 'llama-cpp',
    async models() {
      // Its models are the custom (or built-in) ones whose files are in the cache: already listed.
      return [];
    },
    async accepts(model) {
      return (await findGguf(cacheFolderOf(options.cacheRoot, model.id))) !== undefined;
    },
    async chat(model: ModelRecord, messages: readonly ChatMessage[], chat: ChatOptions) {
      const failure = pool.get(model.id) ? undefined : await currentFailure(model);
      if (failure) {
        throw new Error(
          `Model ${model.id} failed to load at ${failure.at} (${failure.reason}); it is not loaded again until its files change or it is loaded explicitly.`,
        );
      }
      try {
        return await pool.use(
          model.id,
          () => load(model),
          (handle, signal) => generate(model, handle, messages, chat, signal),
          chat.signal,
        );
      } catch (error) {
        // Given up while it waited its turn or loaded: say so as for a generation cut short.
        if (chat.signal.aborted && error === chat.signal.reason)
          throw new Error(`Model ${model.id} did not answer in time.`, { cause: error });
        throw error;
      }
    },
    contextTokens(model) {
      return pool.get(model.id)?.contextSize ?? contextSizes.get(model.id) ?? options.contextSize;
    },
    load(model) {
      // Asked for by name: whatever failed before is tried again.
      failures.delete(model.id);
      return pool.load(model.id, () => load(model));
    },
    unload(model) {
      return pool.unload(model.id);
    },
    isLoaded(model) {
      return pool.get(model.id) !== undefined;
    },
    async loadFailure(model) {
      const failure = await currentFailure(model);
      return failure && { reason: failure.reason, at: failure.at };
    },
    unloadAll() {
      return pool.unloadAll();
    },
  };
}

/** Why a load or a generation failed, in a sentence fragment. */
function reasonOf(error: unknown): string {
  if (error instanceof GgufFileError) return `its file is malformed: ${error.message}`;
  if (error instanceof RunnerExitedError) return error.message;
  return (error as Error).message;
}

/** `{ field }` of a malformed file, for the error the caller sees. */
const fieldOf = (error: unknown): { field?: string } => (error instanceof GgufFileError ? { field: error.field } : {});

/** What identifies the model's files as they are now: names, sizes and change times. */
async function filesStamp(cacheRoot: string, modelId: string): Promise<string> {
  const file = await findGguf(cacheFolderOf(cacheRoot, modelId));
  if (!file) return '';
  const info = await stat(file).catch(() => undefined);
  return info ? `${file}:${info.size}:${info.mtimeMs}` : file;
}
