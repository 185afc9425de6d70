/**
 * The server's sockets, on a real server on 127.0.0.1: a body sent to a route that takes none, or
 * over the limit, never breaks the next request; slow clients are cut off; connections are capped;
 * a token is required off loopback; and `close()` answers the requests under way before it stops.
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HttpServerOptions, type RunningHttpServer, startHttpServer } from '../../adapters/hono/serve.js';
import type { Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { serviceForTest } from '../helpers/service.js';

const running: { server: RunningHttpServer; service: Service }[] = [];
afterEach(async () => {
  for (const { server, service } of running.splice(0)) {
    await server.close();
    await service.close();
  }
});

async function start(options: HttpServerOptions = {}, summarizer = createFakeSummarizer()) {
  const { service } = await serviceForTest({ summarizer });
  const server = await startHttpServer(service, { port: 0, keepAliveTimeoutMs: 1_000, shutdownGraceMs: 2_000, ...options });
  running.push({ server, service });
  return { server, service };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request through `agent`; rejects if the connection drops before an answer. */
function send(agent: Agent, url: string, method = 'GET', body?: Buffer | string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Resolves when the server closes `socket`, or with false after `ms`. */
const closedWithin = (socket: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

describe('bodies the route does not take', () => {
  it('reads and discards a body sent to a route that takes none, and the connection keeps serving', async () => {
    const { server } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const unload = await send(agent, `${server.url}/models/unload`, 'POST', Buffer.alloc(300 * 1024, 'x'.charCodeAt(0)), {
          'content-type': 'application/json',
        });
        expect(unload.status).toBe(204);
        expect((await send(agent, `${server.url}/models`)).status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
  });

  it('answers a body over the limit with 413 once it is read and thrown away, and the connection keeps serving', async () => {
    const { server } = await start({ maxBodyBytes: 64 * 1024 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const tooLarge = await send(agent, `${server.url}/conversations/create`, 'POST', Buffer.alloc(1024 * 1024, ' '.charCodeAt(0)));
        expect(tooLarge.status).toBe(413);
        expect(tooLarge.headers.connection).toBe('keep-alive');
        expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', limit: 64 * 1024 } });
        expect((await send(agent, `${server.url}/models`)).status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
  });

  it('reads and throws away the body of a request it refuses, and the connection keeps serving', async () => {
    const { server } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, `${server.url}/conversations/create`, 'POST', Buffer.alloc(300 * 1024, ' '.charCodeAt(0)), {
        origin: 'https://attacker.example',
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.connection).toBe('keep-alive');
      expect((await send(agent, `${server.url}/models`)).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('slow and many clients', () => {
  it('cuts off a client that does not finish its headers in time', async () => {
    const { server } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    // Read what the server sends (a 408), or its close never reaches us.
    socket.resume();
    socket.write('GET /models HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Node checks these timeouts on an interval of its own (a second or so); 15 s is for a busy
    // machine (the wait ends as soon as the socket closes).
    expect(await closedWithin(socket, 15_000)).toBe(true);
  });

  it('closes connections past the cap as they arrive, and serves the rest', async () => {
    const { server } = await start({ maxConnections: 3 });
    const sockets = Array.from({ length: 8 }, () =>
      connect(server.port, '127.0.0.1')
        .on('error', () => undefined)
        .resume(),
    );
    // The five past the cap are closed as soon as they are accepted: milliseconds; 10 s is for a
    // busy machine (the three within the cap stay open, so no fixed wait on all eight).
    let closed = 0;
    for (const socket of sockets) socket.once('close', () => closed++);
    await vi.waitFor(() => expect(closed).toBeGreaterThanOrEqual(5), { timeout: 10_000 });
    for (const socket of sockets) socket.destroy();
    // Served once the server has seen those connections go (asked again until then, 10 s at most).
    await vi.waitFor(async () => expect((await fetch(`${server.url}/models`)).status).toBe(200), { timeout: 10_000 });
  });
});

describe('binding', () => {
  it('refuses to listen off loopback without a token, naming the remedy', async () => {
    const { service } = await serviceForTest();
    await expect(startHttpServer(service, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/without a token.*API_TOKEN/s);
    await service.close();
  });
});

describe('close()', () => {
  it('answers the requests under way, with Connection: close, then stops accepting', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const summarizer = createFakeSummarizer({ summary: async () => (await slow, 'A summary.') });
    const { server, service } = await start({}, summarizer);
    const conversation = await service.createConversation({
      type: 'COPILOT',
      messages: [{ role: 'USER', fragment: { string: { raw: 'Hello there' } } }],
    });
    const agent = new Agent({ keepAlive: true });
    try {
      const inFlight = send(agent, `${server.url}/conversation/${conversation.id}/summarize`, 'POST', '');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closing = server.close();
      release();
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
      await closing;
      await expect(fetch(`${server.url}/models`)).rejects.toThrow();
      expect((await service.listAnnotations()).iterable).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });
});
