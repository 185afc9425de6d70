import type { ChatHistoryItem, ChatWrapper, Llama, LlamaContext, LlamaModel } from 'node-llama-cpp';
import type { ChatMessage } from '../ports.js';

/** How the engine starts node-llama-cpp. */
export interface LlamaEngineOptions {
  /** The module to import: `node-llama-cpp` (tests name one that is missing). */
  readonly llamaModule: string;
  /** `false` runs on the CPU only; `'auto'` uses a GPU build that loads here, else the CPU. */
  readonly gpu: false | 'auto';
  /** CPU threads a generation uses; undefined for node-llama-cpp's choice. */
  readonly threads?: number;
}

/** A model in memory: its weights, the context (the KV cache) it generates in, its chat template. */
export interface LoadedLlamaModel {
  readonly contextSize: number;
  /** The model's answer to `messages`, at most `maxTokens` long; `signal` ends it early. */
  chat(messages: readonly ChatMessage[], maxTokens: number, signal: AbortSignal): Promise<string>;
  dispose(): Promise<void>;
}

/** Loads GGUF models on node-llama-cpp. What a runner process runs, and what the benchmark compares it with. */
export interface LlamaEngine {
  load(file: string, contextSize: number): Promise<LoadedLlamaModel>;
}

/** A failure that is not the model's: node-llama-cpp is missing or has no binary for this machine. */
export class LlamaLibraryError extends Error {
  override readonly name = 'LlamaLibraryError';
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

// Tokens a chat template adds around each message, at most, for the usual templates.
const TEMPLATE_TOKENS_PER_MESSAGE = 16;

/**
 * Starts node-llama-cpp and its native backend (about a second), ready to load models. Rejects with
 * a {@link LlamaLibraryError} that says how to install it when it cannot start.
 */
export async function startLlamaEngine(options: LlamaEngineOptions): Promise<LlamaEngine> {
  let lib: NodeLlamaCpp;
  try {
    lib = (await import(options.llamaModule)) as NodeLlamaCpp;
  } catch (error) {
    throw new LlamaLibraryError(
      `GGUF models run on node-llama-cpp, which could not be loaded (${(error as Error).message}). Install it beside this package with \`npm install node-llama-cpp\`.`,
    );
  }
  let llama: Llama;
  try {
    // `build: 'never'`: use a prebuilt binary or fail; never download and compile llama.cpp here.
    llama = await lib.getLlama({
      gpu: options.gpu,
      build: 'never',
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
      ...(options.threads !== undefined ? { maxThreads: options.threads } : {}),
    });
  } catch (error) {
    throw new LlamaLibraryError(
      `node-llama-cpp has no prebuilt binary that loads on this machine (${process.platform}-${process.arch}): ${(error as Error).message} ` +
        'Build one with `npx --no node-llama-cpp source download`.',
    );
  }
  return {
    async load(file, contextSize) {
      const weights = await llama.loadModel({ modelPath: file });
      try {
        const context = await weights.createContext({
          contextSize: Math.min(contextSize, weights.trainContextSize),
          sequences: 1,
          ...(options.threads !== undefined ? { threads: options.threads } : {}),
        });
        // Resolved once: matching the GGUF's Jinja template to a known wrapper takes ~0.4 s, too
        // long to repeat for each chat.
        const chatWrapper = lib.resolveChatWrapper(weights);
        return {
          contextSize: context.contextSize,
          chat: (messages, maxTokens, signal) => generate(lib, weights, context, chatWrapper, messages, maxTokens, signal),
          async dispose() {
            await context.dispose();
            await weights.dispose();
          },
        };
      } catch (error) {
        await weights.dispose();
        throw error;
      }
    },
  };
}

async function generate(
  lib: NodeLlamaCpp,
  model: LlamaModel,
  context: LlamaContext,
  chatWrapper: ChatWrapper,
  messages: readonly ChatMessage[],
  maxTokens: number,
  signal: AbortSignal,
): Promise<string> {
  const last = messages.at(-1);
  if (last?.role !== 'user') throw new Error('A chat must end with a user message.');
  const room = context.contextSize;
  const answerTokens = Math.max(1, Math.min(maxTokens, Math.floor(room / 2)));
  const history = messages.slice(0, -1).map(toHistoryItem);
  const prompt = fitPrompt(model, history, last.content, room - answerTokens - TEMPLATE_TOKENS_PER_MESSAGE * messages.length);
  const session = new lib.LlamaChatSession({ contextSequence: context.getSequence(), chatWrapper });
  try {
    session.setChatHistory(history);
    return await session.prompt(prompt, { maxTokens: answerTokens, signal, temperature: 0.2 });
  } finally {
    session.dispose({ disposeSequence: true });
  }
}

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
