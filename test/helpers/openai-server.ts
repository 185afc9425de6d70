import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A chat completion request as the server received it. */
export interface ReceivedChat {
  readonly model: string;
  readonly messages: { role: string; content: string }[];
  readonly max_tokens?: number;
  readonly authorization?: string;
}

/**
 * What the fake answers a chat request with: text for the assistant, a whole reply, or a chat
 * completion whose text is `streamBytes` bytes long, streamed as fast as the socket takes it (with
 * `status`, an error answer that long).
 */
export type ChatReply =
  | string
  | { status: number; body: string }
  | { delayMs: number; text: string }
  | { streamBytes: number; status?: number };

/** An embeddings request as the server received it. */
export interface ReceivedEmbedding {
  readonly model: string;
  readonly input: string[];
  readonly authorization?: string;
}

/**
 * What the fake answers an embeddings request with: `'vectors'`, each input's
 * {@link fakeEmbedding}; the same once `delayMs` have passed; an error answer; or any JSON body.
 */
export type EmbeddingReply = 'vectors' | { delayMs: number } | { status: number; body: string } | { json: unknown };

/** Dimensions of {@link fakeEmbedding}'s vectors. */
export const FAKE_DIMENSIONS = 64;

/**
 * A deterministic vector of meaning, for tests: a bag of the text's lower-cased words, each hashed
 * (FNV-1a) to one of 64 dimensions with a sign of its own, so texts that share words point the same
 * way and texts that share none are near orthogonal (at times a little opposed).
 */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[hash % FAKE_DIMENSIONS]! += hash & 0x8000_0000 ? -1 : 1;
  }
  return vector;
}

/** One streamed answer, as the server saw it go. */
export interface StreamedAnswer {
  /** Bytes written into the socket so far. */
  sent: number;
  /** Whether the whole answer was written; false when the client closed the connection first. */
  finished: boolean;
  /** Settles once the answer is finished or its connection closed. */
  readonly done: Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat API as Ollama or LM Studio do
 * (`GET /v1/models`, `POST /v1/chat/completions`, `POST /v1/embeddings`), answering what the test
 * scripts.
 */
export async function startOpenAiServer(models: string[], reply: (chat: ReceivedChat) => ChatReply = () => 'A title') {
  const chats: ReceivedChat[] = [];
  const streams: StreamedAnswer[] = [];
  let answer = reply;
  let listed = models;
  const embeddings: ReceivedEmbedding[] = [];
  let embeddingReply: (request: ReceivedEmbedding) => EmbeddingReply = () => 'vectors';
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    if (request.method === 'GET' && request.url === '/v1/models') {
      return json(200, {
        object: 'list',
        data: listed.map((id) => ({ id, object: 'model', created: 1_760_000_000, owned_by: 'library' })),
      });
    }
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      const chat = { ...(JSON.parse(body) as ReceivedChat), authorization: request.headers.authorization };
      chats.push(chat);
      const scripted = answer(chat);
      if (typeof scripted === 'object' && 'streamBytes' in scripted) {
        const stream = streamAnswer(response, scripted.streamBytes, scripted.status ?? 200);
        streams.push(stream);
        return stream.done;
      }
      if (typeof scripted === 'object' && 'status' in scripted) {
        response.writeHead(scripted.status, { 'content-type': 'application/json' });
        return response.end(scripted.body);
      }
      if (typeof scripted === 'object') await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
      const text = typeof scripted === 'string' ? scripted : scripted.text;
      if (response.destroyed) return;
      return json(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      });
    }
    if (request.method === 'POST' && request.url === '/v1/embeddings') {
      const received = { ...(JSON.parse(body) as ReceivedEmbedding), authorization: request.headers.authorization };
      embeddings.push(received);
      const scripted = embeddingReply(received);
      if (typeof scripted === 'object' && 'status' in scripted) {
        response.writeHead(scripted.status, { 'content-type': 'application/json' });
        return response.end(scripted.body);
      }
      if (typeof scripted === 'object' && 'json' in scripted) return json(200, scripted.json);
      if (typeof scripted === 'object') await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
      if (response.destroyed) return;
      return json(200, {
        object: 'list',
        model: received.model,
        data: received.input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
      });
    }
    json(404, { error: { message: `no route ${request.method} ${request.url}` } });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    chats,
    /** The answers streamed so far (`{ streamBytes }` replies), in order. */
    streams,
    /** Scripts the next answers. */
    answer(next: (chat: ReceivedChat) => ChatReply) {
      answer = next;
    },
    /** The embeddings requests received so far, in order. */
    embeddings,
    /** Scripts the next embeddings answers. */
    embed(next: (request: ReceivedEmbedding) => EmbeddingReply) {
      embeddingReply = next;
    },
    /** Lists these models from now on. */
    list(next: string[]) {
      listed = next;
    },
    /** Stops the server, cutting open connections: the endpoint going away. */
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CHUNK = Buffer.alloc(64 * 1024, 'a');

/**
 * Writes a chat completion whose text is `bytes` bytes of `a`, a chunk at a time, each once the
 * socket has taken the one before (backpressure), and stops when the client closes the connection.
 */
function streamAnswer(response: ServerResponse, bytes: number, status: number): StreamedAnswer {
  let closed = false;
  const done = new Promise<void>((resolve) =>
    response.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  const stream: StreamedAnswer = { sent: 0, finished: false, done };
  const write = (chunk: string | Buffer) => {
    stream.sent += chunk.length;
    return response.write(chunk);
  };
  void (async () => {
    response.writeHead(status, { 'content-type': 'application/json' });
    write('{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
    // Bounded by `bytes`; the client closing the connection ends it early.
    for (let left = bytes; left > 0 && !closed; left -= CHUNK.length) {
      const full = !write(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left));
      if (full) await Promise.race([new Promise((resolve) => response.once('drain', resolve)), done]);
    }
    if (closed) return;
    response.end('"},"finish_reason":"stop"}]}');
    stream.finished = true;
  })();
  return stream;
}
