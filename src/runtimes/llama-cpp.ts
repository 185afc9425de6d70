import type { ChatHistoryItem, ChatWrapper, LlamaContext, LlamaModel } from 'node-llama-cpp';
import { cacheFolderOf } from '../models/cache-folder.js';
import type { ChatMessage, ChatOptions, ModelRuntime } from '../ports.js';
import type { ModelRecord } from '../records.js';
import { findGguf } from './gguf-files.js';
import { createModelPool } from './model-pool.js';

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
  /** Idle time after which a loaded model is unloaded; each use restarts it. Default 5 minutes. */
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
  /**
   * Imports node-llama-cpp (tests simulate its absence with one that rejects). Default:
   * `import('node-llama-cpp')`.
   */
  readonly importLlama?: () => Promise<unknown>;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** A model in memory: its weights, the context (the KV cache) it generates in, its chat template. */
interface LoadedModel {
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly chatWrapper: ChatWrapper;
  dispose(): Promise<void>;
}

/** node-llama-cpp's module and its native backend. */
interface Backend {
  readonly lib: NodeLlamaCpp;
  readonly llama: import('node-llama-cpp').Llama;
}

const DEFAULT_CONTEXT_SIZE = 4_096;
const importLlama = () => import('node-llama-cpp');
// Starting the backend takes about a second (on Linux, node-llama-cpp first tries its prebuilt
// binary in a child process), and it holds no model: the runtimes of a process share one per GPU
// and thread setting. A failure is forgotten, so installing node-llama-cpp later works.
const sharedBackends = new Map<string, Promise<Backend>>();
// Tokens a chat template adds around each message, at most, for the usual templates.
const TEMPLATE_TOKENS_PER_MESSAGE = 16;

/**
 * A runtime that runs GGUF models in this process, on node-llama-cpp (llama.cpp), on the CPU by
 * default. It runs any model, custom or not, whose cache folder (`<cacheRoot>/<encoded id>/`) holds a
 * complete `.gguf` file; it lists none of its own. node-llama-cpp is an optional peer dependency,
 * imported on first use: without it, using such a model rejects with how to install it.
 *
 * Memory policy: a model is loaded on demand and unloaded after `keepAliveMs` idle; at most
 * `maxLoadedModels` are held (the least recently used makes room); one generation at a time per
 * model, at most `maxQueue` waiting, the next one refused at once as busy.
 */
export function createLlamaCppRuntime(options: LlamaCppRuntimeOptions): ModelRuntime {
  const pool = createModelPool<LoadedModel>({
    keepAliveMs: options.keepAliveMs ?? 5 * 60_000,
    maxLoaded: options.maxLoadedModels ?? 1,
    maxQueue: options.maxQueue ?? 4,
  });
  // The context size each model got when it was last loaded: what to fit prompts to before it loads again.
  const contextSizes = new Map<string, number>();
  let ownBackend: Promise<Backend> | undefined;

  /** node-llama-cpp and its native backend, shared by the runtimes that import it the default way. */
  function getBackend(): Promise<Backend> {
    if (options.importLlama)
      return (ownBackend ??= startBackend(options.importLlama, options).catch(forget(() => (ownBackend = undefined))));
    const key = `${options.gpu ?? false}/${options.threads ?? 'default'}`;
    let shared = sharedBackends.get(key);
    if (!shared) {
      shared = startBackend(importLlama, options).catch(forget(() => sharedBackends.delete(key)));
      sharedBackends.set(key, shared);
    }
    return shared;
  }

  async function load(model: ModelRecord): Promise<LoadedModel> {
    const folder = cacheFolderOf(options.cacheRoot, model.id);
    const file = await findGguf(folder);
    if (!file) throw new Error(`Model ${model.id} has no complete .gguf file in ${folder}.`);
    const { lib, llama } = await getBackend();
    const weights = await llama.loadModel({ modelPath: file });
    try {
      const context = await weights.createContext({
        contextSize: Math.min(options.contextSize ?? DEFAULT_CONTEXT_SIZE, weights.trainContextSize),
        sequences: 1,
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
      });
      contextSizes.set(model.id, context.contextSize);
      return {
        model: weights,
        context,
        // Resolved once: matching the GGUF's Jinja template to a known wrapper takes ~0.4 s, too
        // long to repeat for each chat.
        chatWrapper: lib.resolveChatWrapper(weights),
        async dispose() {
          await context.dispose();
          await weights.dispose();
        },
      };
    } catch (error) {
      await weights.dispose();
      throw error;
    }
  }

  /** The model's answer; `signal` aborts when the caller gives up (`chat.signal`) or the model is unloaded. */
  async function generate(
    model: ModelRecord,
    loaded: LoadedModel,
    messages: readonly ChatMessage[],
    chat: ChatOptions,
    signal: AbortSignal,
  ): Promise<string> {
    const { lib } = await getBackend();
    const last = messages.at(-1);
    if (last?.role !== 'user') throw new Error('A chat must end with a user message.');
    const room = loaded.context.contextSize;
    const answerTokens = Math.max(1, Math.min(chat.maxTokens, Math.floor(room / 2)));
    const history = messages.slice(0, -1).map(toHistoryItem);
    const prompt = fitPrompt(loaded.model, history, last.content, room - answerTokens - TEMPLATE_TOKENS_PER_MESSAGE * messages.length);
    const session = new lib.LlamaChatSession({ contextSequence: loaded.context.getSequence(), chatWrapper: loaded.chatWrapper });
    try {
      session.setChatHistory(history);
      return await session.prompt(prompt, { maxTokens: answerTokens, signal, temperature: 0.2 });
    } catch (error) {
      if (signal.aborted) {
        throw new Error(`Model ${model.id} ${chat.signal.aborted ? 'did not answer in time' : 'was unloaded'}.`, { cause: error });
      }
      throw new Error(`Model ${model.id} could not generate: ${(error as Error).message}`, { cause: error });
    } finally {
      session.dispose({ disposeSequence: true });
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
      try {
        return await pool.use(
          model.id,
          () => load(model),
          (loaded, signal) => generate(model, loaded, messages, chat, signal),
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
      return pool.get(model.id)?.context.contextSize ?? contextSizes.get(model.id) ?? options.contextSize;
    },
    load(model) {
      return pool.load(model.id, () => load(model));
    },
    unload(model) {
      return pool.unload(model.id);
    },
    isLoaded(model) {
      return pool.get(model.id) !== undefined;
    },
    unloadAll() {
      return pool.unloadAll();
    },
  };
}

async function startBackend(importLib: () => Promise<unknown>, options: LlamaCppRuntimeOptions): Promise<Backend> {
  let lib: NodeLlamaCpp;
  try {
    lib = (await importLib()) as NodeLlamaCpp;
  } catch (error) {
    throw new Error(
      `GGUF models run on node-llama-cpp, which could not be loaded (${(error as Error).message}). Install it beside this package with \`npm install node-llama-cpp\`.`,
      { cause: error },
    );
  }
  try {
    // `build: 'never'`: use a prebuilt binary or fail; never download and compile llama.cpp here.
    const llama = await lib.getLlama({
      gpu: options.gpu ?? false,
      build: 'never',
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
      ...(options.threads !== undefined ? { maxThreads: options.threads } : {}),
    });
    return { lib, llama };
  } catch (error) {
    throw new Error(
      `node-llama-cpp has no prebuilt binary that loads on this machine (${process.platform}-${process.arch}): ${(error as Error).message} ` +
        'Build one with `npx --no node-llama-cpp source download`.',
      { cause: error },
    );
  }
}

const forget =
  (drop: () => void) =>
  (error: unknown): never => {
    drop();
    throw error;
  };

function toHistoryItem(message: ChatMessage): ChatHistoryItem {
  if (message.role === 'assistant') return { type: 'model', response: [message.content] };
  return { type: message.role, text: message.content };
}

/**
 * The last message, shortened if the chat would not fit `budget` tokens of context. The service
 * already fits conversations by an estimate of characters per token; this is the exact check, for
 * a model whose context or tokenizer is smaller than estimated. It keeps the message's start (the
 * request) and end (the latest turns and the question), and marks the cut.
 */
function fitPrompt(model: LlamaModel, history: readonly ChatHistoryItem[], text: string, budget: number): string {
  const used = history.reduce(
    (sum, item) => sum + model.tokenize(item.type === 'model' ? item.response.join('') : String(item.text)).length,
    0,
  );
  let fitted = text;
  for (let attempt = 0; attempt < 4; attempt++) {
    const tokens = model.tokenize(fitted).length;
    if (used + tokens <= budget) return fitted;
    const keepChars = Math.floor(((fitted.length * Math.max(0, budget - used)) / tokens) * 0.9);
    if (keepChars < 16) break;
    fitted = `${text.slice(0, Math.ceil(keepChars / 2))}\n[…]\n${text.slice(text.length - Math.floor(keepChars / 2))}`;
  }
  throw new Error(`The prompt does not fit in the ${budget} tokens of context left for it.`);
}
