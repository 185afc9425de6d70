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
 * (`GET /v1/models`, `POST /v1/chat/completions`), answering what the test scripts.
 */
export async function startOpenAiServer(models: string[], reply: (chat: ReceivedChat) => ChatReply = () => 'A title') {
  const chats: ReceivedChat[] = [];
  const streams: StreamedAnswer[] = [];
  let answer = reply;
  let listed = models;
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
