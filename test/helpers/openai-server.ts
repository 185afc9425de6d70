import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A chat completion request as the server received it. */
export interface ReceivedChat {
  readonly model: string;
  readonly messages: { role: string; content: string }[];
  readonly max_tokens?: number;
  readonly authorization?: string;
}

/** What the fake answers a chat request with: text for the assistant, or a whole reply. */
export type ChatReply = string | { status: number; body: string } | { delayMs: number; text: string };

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat API as Ollama or LM Studio do
 * (`GET /v1/models`, `POST /v1/chat/completions`), answering what the test scripts.
 */
export async function startOpenAiServer(models: string[], reply: (chat: ReceivedChat) => ChatReply = () => 'A title') {
  const chats: ReceivedChat[] = [];
  let answer = reply;
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
        data: models.map((id) => ({ id, object: 'model', created: 1_760_000_000, owned_by: 'library' })),
      });
    }
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      const chat = { ...(JSON.parse(body) as ReceivedChat), authorization: request.headers.authorization };
      chats.push(chat);
      const scripted = answer(chat);
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
    /** Scripts the next answers. */
    answer(next: (chat: ReceivedChat) => ChatReply) {
      answer = next;
    },
    /** Stops the server, cutting open connections: the endpoint going away. */
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
