/**
 * The four change streams over WebSocket, on the port of the HTTP routes: what a subscriber reads
 * (every id first, then each create, update and delete, in order, soon after the write), who may
 * subscribe (the router's Host, Origin and token rules), and a subscriber that stops reading being
 * dropped with close code 1013 while another keeps receiving.
 */
import { createServer } from 'node:http';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { attachStreams, STREAM_CLOSE_CODES } from '../../adapters/hono/index.js';
import { type RunningHttpServer, startHttpServer } from '../../adapters/hono/serve.js';
import { createJsonFileRepository, createService, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { expectCreateUpdateDelete, idsOf, openStream } from '../helpers/stream-client.js';
import { tempDir } from '../helpers/temp-dir.js';

async function jsonFileService(): Promise<Service> {
  const folder = await tempDir();
  const repository = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  onTestFinished(() => service.close());
  return service;
}

async function serve(service: Service, options: Parameters<typeof startHttpServer>[1] = {}): Promise<RunningHttpServer> {
  // A short grace: the official client's idle keep-alive connection would hold close() up to its timeout.
  const server = await startHttpServer(service, { port: 0, shutdownGraceMs: 100, ...options });
  onTestFinished(() => server.close());
  return server;
}

const wsUrl = (server: RunningHttpServer, route: string) => `${server.url.replace(/^http/, 'ws')}${route}`;

describe('change streams over WebSocket', () => {
  it('sends every id first, then a create, an update and a delete in order, each within a second (JSON-file store, official client)', async () => {
    const service = await jsonFileService();
    const before = await service.createConversation({ type: 'COPILOT', name: 'There before' });
    const server = await serve(service);
    const stream = await openStream(wsUrl(server, '/conversations/stream/identifiers'));
    expect(idsOf(await stream.next())).toEqual([before.id]);

    const created = await expectCreateUpdateDelete(server.url, stream);
    expect(stream.frames[3]).toEqual({ iterable: [{ conversation: { id: created }, deleted: true }] });
  });

  it('streams messages, annotations and models in their own fields', async () => {
    const service = await jsonFileService();
    const server = await serve(service);
    const [messages, annotations, models] = await Promise.all(
      ['/messages', '/annotations', '/models'].map((route) => openStream(wsUrl(server, `${route}/stream/identifiers`))),
    );
    expect((await messages!.next()).iterable).toEqual([]);
    expect((await annotations!.next()).iterable).toEqual([]);
    // The models' first frame lists every model the service lists: the built-in one at least.
    const builtins = (await service.listModels()).iterable.map((model) => model.id);
    expect(idsOf(await models!.next())).toEqual(builtins);

    const conversation = await service.createConversation({ type: 'COPILOT' });
    const message = await service.createMessage({
      conversation: { id: conversation.id },
      role: 'USER',
      fragment: { string: { raw: 'Hi' } },
    });
    expect((await messages!.next()).iterable).toEqual([{ conversationMessage: { id: message.id } }]);
    const annotation = await service.createAnnotation({ type: 'COMMENT', text: 'Noted.', conversation: conversation.id });
    expect((await annotations!.next()).iterable).toEqual([{ annotation: { id: annotation.id } }]);
    const model = await service.createModel({
      version: '1.0',
      created: { value: '2026-01-01T00:00:00.000Z' },
      name: 'Mine',
      cloud: false,
      type: 'BALANCED',
      usage: 'CODE_CONVERSATION',
      foundation: 'LLAMA_3_8B',
      unique: 'mine',
    });
    expect((await models!.next()).iterable).toEqual([{ model: { id: model.id } }]);
    // Deleting the conversation deletes its message and annotation: each stream says so.
    await service.deleteConversation(conversation.id);
    expect(idsOf(await messages!.next())).toEqual([`-${message.id}`]);
    expect(idsOf(await annotations!.next())).toEqual([`-${annotation.id}`]);
  });

  it('closes a stream opened after the service closed with 1001, logs its close, and goes on serving', async () => {
    const service = await jsonFileService();
    const lines: string[] = [];
    const server = await serve(service, { requestLog: (line) => lines.push(line) });
    await service.close();
    const late = await openStream(wsUrl(server, '/conversations/stream/identifiers'));
    expect((await late.closed).code).toBe(STREAM_CLOSE_CODES.goingAway);
    await expect
      .poll(() => lines)
      .toEqual([
        'WS /conversations/stream/identifiers open',
        expect.stringMatching(/^WS \/conversations\/stream\/identifiers closed 1001 after \d+ ms$/),
      ]);
    expect((await fetch(`${server.url}/.well-known/version`)).status).toBe(200);
  });

  it('refuses a web page of another origin, and a foreign Host, before the upgrade; accepts an allowed origin', async () => {
    const service = await jsonFileService();
    const server = await serve(service, { allowedOrigins: ['http://localhost:5173'] });
    const url = wsUrl(server, '/conversations/stream/identifiers');
    await expect(openStream(url, undefined, { origin: 'https://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(openStream(url, undefined, { headers: { host: 'evil.example' } })).rejects.toMatchObject({ status: 403 });
    const allowed = await openStream(url, undefined, { origin: 'http://localhost:5173' });
    expect((await allowed.next()).iterable).toEqual([]);
    await expect(openStream(wsUrl(server, '/no/such/stream'))).rejects.toMatchObject({ status: 404 });
  });

  it('takes the token as a query parameter, a subprotocol or a header, and refuses a wrong or missing one', async () => {
    const service = await jsonFileService();
    const token = 'correct horse battery staple';
    const server = await serve(service, { token });
    const url = wsUrl(server, '/models/stream/identifiers');
    const byQuery = await openStream(`${url}?token=${encodeURIComponent(token)}`);
    expect((await byQuery.next()).iterable.length).toBeGreaterThan(0);
    const byProtocol = await openStream(url, ['identifiers', `bearer.${Buffer.from(token).toString('base64url')}`]);
    expect((await byProtocol.next()).iterable.length).toBeGreaterThan(0);
    // The protocol answered is the plain one: the token is not sent back.
    expect(byProtocol.socket.protocol).toBe('identifiers');
    const byHeader = await openStream(url, undefined, { headers: { authorization: `Bearer ${token}` } });
    expect((await byHeader.next()).iterable.length).toBeGreaterThan(0);

    await expect(openStream(`${url}?token=wrong`)).rejects.toMatchObject({ status: 401 });
    await expect(openStream(url, ['identifiers', `bearer.${Buffer.from('wrong').toString('base64url')}`])).rejects.toMatchObject({
      status: 401,
    });
    await expect(openStream(url)).rejects.toMatchObject({ status: 401 });
  });

  it('drops a subscriber that stopped reading with code 1013, while another keeps receiving every change', async () => {
    // Long ids make big frames: the kernel's socket buffers (a few MiB on loopback) must fill
    // before the server sees a subscriber that stopped reading, and a few thousand writes fill them.
    let n = 0;
    const service = await createService({
      summarizer: createFakeSummarizer(),
      generateId: () => `${String(++n).padStart(8, '0')}-${'x'.repeat(2_000)}`,
    });
    onTestFinished(() => service.close());
    const server = createServer();
    const streams = attachStreams(server, service, { maxPendingIds: 100, highWaterBytes: 16 * 1024 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(async () => {
      await streams.close();
      await new Promise((resolve) => server.close(resolve));
    });
    const { port } = server.address() as { port: number };
    const url = `ws://127.0.0.1:${port}/conversations/stream/identifiers`;
    const stalled = await openStream(url);
    const live = await openStream(url);
    await stalled.next();
    await live.next();
    stalled.socket.pause();

    const written: string[] = [];
    const deadline = performance.now() + 10_000;
    // Until the server has dropped the stalled one: bounded in count and in time.
    for (let batch = 0; streams.size === 2 && batch < 40 && performance.now() < deadline; batch++) {
      for (let i = 0; i < 500; i++) written.push((await service.createConversation({ type: 'COPILOT' })).id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(streams.size).toBe(1);
    // The live one got every id, in order.
    const end = performance.now() + 5_000;
    while (live.frames.flatMap(idsOf).length < written.length && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(live.frames.slice(1).flatMap(idsOf)).toEqual(written);
    // The stalled one, reading again, finds its backlog end with the close code.
    stalled.socket.resume();
    expect((await stalled.closed).code).toBe(STREAM_CLOSE_CODES.tooSlow);
  });
});
