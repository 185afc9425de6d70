import type { ChatMessage, ChatOptions, ModelRuntime } from '../ports.js';
import type { ModelRecord } from '../records.js';

/** Options of {@link createOpenAiCompatibleRuntime}. */
export interface OpenAiCompatibleRuntimeOptions {
  /**
   * The API's base URL, with its `/v1`: `http://127.0.0.1:11434/v1` for Ollama,
   * `http://127.0.0.1:1234/v1` for LM Studio, `http://127.0.0.1:8080/v1` for llama.cpp's server.
   */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. Local servers need none. */
  readonly apiKey?: string;
  /** Names the runtime in model ids (`<name>:<model>`). Default `openai`. */
  readonly name?: string;
  /** How long the model list is reused before it is asked again. Default 30 s. */
  readonly listTtlMs?: number;
  /** How long listing the models may take; past it, the last list is used. Default 2 s. */
  readonly listTimeoutMs?: number;
  /** The `fetch` to use (tests, proxies). Default: the global one. */
  readonly fetch?: typeof fetch;
}

// A listed model is as old as the listing says; without a date, this fixed one.
const UNKNOWN_CREATED = { value: '2026-01-01T00:00:00.000Z' };

/**
 * A runtime for any server that speaks the OpenAI chat API (`GET /models`, `POST
 * /chat/completions`), written on `fetch`: Ollama, LM Studio, llama.cpp's server, vLLM, LocalAI.
 * Its models are listed as `<name>:<model>` (`openai:llama3.2:latest`), with `unique` set to the
 * server's own model name, `usage: CODE_CONVERSATION`, and `cloud: false` when the server is on this
 * machine. A server that is down is never an error for the listing: its models are answered as last
 * seen, not loaded, and using one rejects with the reason.
 */
export function createOpenAiCompatibleRuntime(options: OpenAiCompatibleRuntimeOptions): ModelRuntime {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const name = options.name ?? 'openai';
  const doFetch = options.fetch ?? fetch;
  const ttl = options.listTtlMs ?? 30_000;
  const cloud = !isLoopbackUrl(baseUrl);
  const headers = (json: boolean): Record<string, string> => ({
    ...(json ? { 'Content-Type': 'application/json' } : {}),
    ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
  });
  let known: { names: string[]; created: Map<string, number>; reachable: boolean; at: number } = {
    names: [],
    created: new Map(),
    reachable: false,
    at: 0,
  };
  let listing: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    try {
      const response = await doFetch(`${baseUrl}/models`, {
        headers: headers(false),
        signal: AbortSignal.timeout(options.listTimeoutMs ?? 2_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { data?: { id?: unknown; created?: unknown }[] };
      const entries = (body.data ?? []).filter((entry): entry is { id: string; created?: unknown } => typeof entry?.id === 'string');
      known = {
        names: entries.map((entry) => entry.id),
        created: new Map(entries.filter((entry) => typeof entry.created === 'number').map((entry) => [entry.id, entry.created as number])),
        reachable: true,
        at: Date.now(),
      };
    } catch {
      known = { ...known, reachable: false, at: Date.now() };
    }
  }

  async function current() {
    if (Date.now() - known.at >= ttl || (!known.reachable && Date.now() - known.at >= 1_000)) {
      listing ??= refresh().finally(() => (listing = undefined));
      await listing;
    }
    return known;
  }

  const record = (model: string): ModelRecord => {
    const created = known.created.get(model);
    return {
      id: `${name}:${model}`,
      version: model.includes(':') ? model.slice(model.lastIndexOf(':') + 1) : 'latest',
      created: created ? { value: new Date(created * 1000).toISOString() } : UNKNOWN_CREATED,
      name: model,
      description: `${model}, served by the OpenAI-compatible server at ${baseUrl}.`,
      cloud,
      type: 'BALANCED',
      usage: 'CODE_CONVERSATION',
      custom: false,
      unique: model,
      downloaded: true,
      downloading: false,
      loaded: known.reachable,
      cpu: false,
    };
  };

  return {
    name,
    async models() {
      return (await current()).names.map(record);
    },
    async accepts(model) {
      if (model.id.startsWith(`${name}:`)) return true;
      return model.unique !== undefined && (await current()).names.includes(model.unique);
    },
    async chat(model: ModelRecord, messages: readonly ChatMessage[], chat: ChatOptions) {
      const modelName = model.unique ?? model.name;
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}/chat/completions`, {
          method: 'POST',
          headers: headers(true),
          body: JSON.stringify({ model: modelName, messages, max_tokens: chat.maxTokens, temperature: 0.2, stream: false }),
          signal: chat.signal,
        });
      } catch (error) {
        if (chat.signal.aborted) throw new Error(`The model ${modelName} at ${baseUrl} did not answer in time.`, { cause: error });
        throw new Error(`The OpenAI-compatible server at ${baseUrl} cannot be reached (${(error as Error).message}).`, { cause: error });
      }
      const text = await response.text();
      if (!response.ok)
        throw new Error(`The server at ${baseUrl} answered ${response.status} for model ${modelName}: ${text.slice(0, 200)}`);
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
      } catch {
        throw new Error(`The server at ${baseUrl} answered something that is not a chat completion: ${text.slice(0, 200)}`);
      }
      if (typeof content !== 'string') throw new Error(`The server at ${baseUrl} answered a chat completion without text.`);
      return content;
    },
  };
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1';
  } catch {
    return false;
  }
}
