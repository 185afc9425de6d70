import type { Embedder } from '../ports.js';
import { byteSize, postJson } from './capped-body.js';

/** Options of {@link createOpenAiCompatibleEmbedder}. */
export interface OpenAiCompatibleEmbedderOptions {
  /**
   * The API's base URL, with its `/v1`: `http://127.0.0.1:11434/v1` for Ollama,
   * `http://127.0.0.1:1234/v1` for LM Studio, `http://127.0.0.1:8080/v1` for llama.cpp's server.
   */
  readonly baseUrl: string;
  /** The embedding model, by the server's name for it: `nomic-embed-text`, `all-minilm`. */
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. Local servers need none. */
  readonly apiKey?: string;
  /** The `fetch` to use (tests, proxies). Default: the global one. */
  readonly fetch?: typeof fetch;
  /**
   * The most bytes read of an answer. The request is aborted, its connection closed, the moment
   * an answer passes it, and the call rejects saying so. Default 64 MiB: a batch of 32 vectors of
   * 4,096 numbers written as JSON takes ~3 MiB, so the default leaves room for much larger ones.
   */
  readonly maxResponseBytes?: number;
  /** How long one call may take, combined with the caller's signal. Default 60 s. */
  readonly timeoutMs?: number;
}

// An error answer is quoted by its first 200 characters, at most 4 bytes each in UTF-8.
const QUOTED_CHARS = 200;
const QUOTED_BYTES = QUOTED_CHARS * 4;

/**
 * An {@link Embedder} for any server that speaks OpenAI's embeddings API (`POST /embeddings` with
 * `{ model, input: [...] }`, answering `{ data: [{ index, embedding }] }`): Ollama, LM Studio,
 * llama.cpp's server, vLLM, LocalAI, OpenAI itself. Nothing the server answers is trusted: at most
 * `maxResponseBytes` of it is read, and the call rejects, saying why, on an error status, a count of
 * vectors that is not the count of texts, indexes out of place, numbers that are not finite, or
 * vectors of different lengths.
 */
export function createOpenAiCompatibleEmbedder(options: OpenAiCompatibleEmbedderOptions): Embedder {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const model = options.model;
  const doFetch = options.fetch ?? fetch;
  const maxBytes = options.maxResponseBytes ?? 64 * 2 ** 20;
  const timeoutMs = options.timeoutMs ?? 60_000;
  // A NaN cap or timeout would let everything through, unnoticed.
  if (!(maxBytes > 0)) throw new RangeError(`maxResponseBytes must be a positive number of bytes, not ${maxBytes}.`);
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of milliseconds, not ${timeoutMs}.`);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
  };
  const where = `The server at ${baseUrl}`;

  return {
    model,
    async embed(texts, signal) {
      // Nothing to ask: a request for no input is an error on some servers.
      if (texts.length === 0) return [];
      const request = new AbortController();
      const timeout = AbortSignal.timeout(timeoutMs);
      const failed = (error: unknown, what: string) => {
        if (signal.aborted)
          return new Error(`The embedding of ${texts.length} texts with model ${model} at ${baseUrl} was aborted.`, { cause: error });
        if (timeout.aborted)
          return new Error(`${where} did not answer within ${timeoutMs / 1000} s for embedding model ${model}.`, { cause: error });
        return new Error(`The OpenAI-compatible server at ${baseUrl} ${what} (${(error as Error).message}).`, { cause: error });
      };
      const { response, text, cut } = await postJson({
        fetch: doFetch,
        url: `${baseUrl}/embeddings`,
        payload: { model, input: texts },
        headers,
        signal: AbortSignal.any([signal, timeout]),
        request,
        maxBytes,
        quotedBytes: QUOTED_BYTES,
        failed,
      });
      if (!response.ok)
        throw new Error(`${where} answered ${response.status} for embedding model ${model}: ${text.slice(0, QUOTED_CHARS)}`);
      if (cut)
        throw new Error(
          `${where} answered more than ${byteSize(maxBytes)} for embedding model ${model}; answers are capped at maxResponseBytes.`,
        );
      let data: unknown;
      try {
        data = (JSON.parse(text) as { data?: unknown }).data;
      } catch {
        throw new Error(`${where} answered something that is not JSON for embedding model ${model}: ${text.slice(0, QUOTED_CHARS)}`);
      }
      return vectorsOf(data, texts.length, `${where} answered embeddings of model ${model} with`);
    },
  };
}

/** The vectors of an answer's `data`, in input order, or an Error naming what is wrong with it. */
function vectorsOf(data: unknown, count: number, said: string): Float32Array[] {
  if (!Array.isArray(data)) throw new Error(`${said} no data list.`);
  if (data.length !== count) throw new Error(`${said} ${data.length} vectors for ${count} texts.`);
  const vectors: (Float32Array | undefined)[] = new Array(count).fill(undefined);
  let length: number | undefined;
  data.forEach((entry: { index?: unknown; embedding?: unknown } | null, position) => {
    // OpenAI's answers carry `index`; a server that leaves it out answers in input order.
    const index = entry?.index ?? position;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count)
      throw new Error(`${said} an index that is not one of the inputs' (${JSON.stringify(index)?.slice(0, 40)}).`);
    if (vectors[index]) throw new Error(`${said} two vectors for input ${index}.`);
    const embedding = entry?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0) throw new Error(`${said} no vector (a list of numbers) for input ${index}.`);
    length ??= embedding.length;
    if (embedding.length !== length) throw new Error(`${said} vectors of different lengths (${length} and ${embedding.length}).`);
    const vector = new Float32Array(length);
    for (let i = 0; i < length; i++) {
      const value = embedding[i];
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new Error(`${said} a vector of something other than numbers for input ${index}.`);
      vector[i] = value;
    }
    vectors[index] = vector;
  });
  return vectors as Float32Array[];
}
