/**
 * What the OpenAI-compatible runtime reads of a server is bounded: a chat answer, an error body and
 * the model list are read up to `maxResponseBytes` (default 1 MiB), the request aborted and its
 * connection closed past it; at most `maxModels` models (default 1,000) are listed. A chat past the
 * cap falls back to the embedded summarizer; a model list past it is a failed listing.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createService } from '../../src/index.js';
import type { ModelRecord } from '../../src/records.js';
import { createOpenAiCompatibleRuntime, type OpenAiCompatibleRuntimeOptions } from '../../src/runtimes/openai-compatible.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { type StreamedAnswer, startOpenAiServer } from '../helpers/openai-server.js';
import { said } from '../helpers/service.js';

const MiB = 2 ** 20;
type FakeServer = Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close().catch(() => undefined);
});

async function setUp(options: Partial<OpenAiCompatibleRuntimeOptions> = {}, models = ['llama3.2:latest']) {
  const server = await startOpenAiServer(models);
  servers.push(server);
  const warnings: string[] = [];
  const runtime = createOpenAiCompatibleRuntime({
    baseUrl: server.baseUrl,
    listTtlMs: 0,
    logger: { warn: (message) => warnings.push(message) },
    ...options,
  });
  return { server, runtime, warnings };
}

const llama = { id: 'openai:llama3.2:latest', unique: 'llama3.2:latest', name: 'llama3.2:latest' } as ModelRecord;
const chatWith = (runtime: ReturnType<typeof createOpenAiCompatibleRuntime>) =>
  runtime.chat(llama, [{ role: 'user', content: 'Name this conversation.' }], { maxTokens: 32, signal: AbortSignal.timeout(10_000) });

/** Resolves once the server saw the answer's connection close (or finish); fails after 5 s. */
async function closed(stream: StreamedAnswer | undefined): Promise<StreamedAnswer> {
  if (!stream) throw new Error('no answer was streamed');
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('the connection stayed open for 5 s')), 5_000).unref(),
  );
  await Promise.race([stream.done, timeout]);
  return stream;
}

// The runtime reads 1 MiB; what the server had written by the time it saw the connection close
// adds what the sockets' buffers on loopback hold (a few MiB). 16 MiB is far above that, and far
// below the 64 MiB the server would have sent to a runtime reading it all.
const FAR_LESS = 16 * MiB;

describe('a chat answer past the cap', () => {
  it('rejects saying so, and the server sees the connection closed long before it sent the whole', async () => {
    const { server, runtime } = await setUp();
    server.answer(() => ({ streamBytes: 64 * MiB }));
    await expect(chatWith(runtime)).rejects.toThrow(
      `The server at ${server.baseUrl} answered more than 1 MiB for model llama3.2:latest; answers are capped at maxResponseBytes.`,
    );
    const stream = await closed(server.streams[0]);
    expect(stream.finished).toBe(false);
    expect(stream.sent).toBeLessThan(FAR_LESS);
  });

  it('is read whole below the cap, and cut above it, for a cap of your choice', async () => {
    const { server, runtime } = await setUp({ maxResponseBytes: 64 * 1024 });
    server.answer(() => 'x'.repeat(60 * 1024));
    expect(await chatWith(runtime)).toHaveLength(60 * 1024);
    server.answer(() => 'x'.repeat(70 * 1024));
    await expect(chatWith(runtime)).rejects.toThrow(/answered more than 64 KiB for model llama3\.2:latest/);
  });

  it('makes the service write with the embedded summarizer, and the reason is logged', async () => {
    const { server, runtime } = await setUp();
    server.answer(() => ({ streamBytes: 64 * MiB }));
    const warnings: string[] = [];
    const service = await createService({
      summarizer: createFakeSummarizer({ title: 'Embedded title' }),
      runtimes: [runtime],
      logger: { warn: (message) => warnings.push(message) },
    });
    const conversation = await service.createConversation({
      type: 'COPILOT',
      model: { id: 'openai:llama3.2:latest' },
      messages: [said('USER', 'How do I retry a flaky payment API?'), said('ASSISTANT', 'With backoff and jitter.')],
    });
    expect((await service.renameConversation(conversation.id)).name).toBe('Embedded title');
    expect(warnings).toEqual([
      `Model openai:llama3.2:latest could not write the title: The server at ${server.baseUrl} answered more than 1 MiB for model llama3.2:latest; answers are capped at maxResponseBytes. The embedded summarizer wrote it.`,
    ]);
    expect((await closed(server.streams[0])).sent).toBeLessThan(FAR_LESS);
  });
});

describe('an error answer', () => {
  it('is quoted by its first 200 characters, and the rest of a huge one is never read', async () => {
    const { server, runtime } = await setUp();
    server.answer(() => ({ status: 500, streamBytes: 64 * MiB }));
    const prefix = `The server at ${server.baseUrl} answered 500 for model llama3.2:latest: `;
    const message = await chatWith(runtime).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message.startsWith(prefix)).toBe(true);
    const quote = message.slice(prefix.length);
    expect(quote).toHaveLength(200);
    expect(quote).toMatch(/^\{"id":"chatcmpl-1",.*"content":"a+$/);
    const stream = await closed(server.streams[0]);
    expect(stream.finished).toBe(false);
    expect(stream.sent).toBeLessThan(FAR_LESS);
  });
});

describe('a huge model list', () => {
  const many = Array.from({ length: 200_000 }, (_, i) => `model-${i}`);

  it('lists its first maxModels models (default 1,000) and says once that the others are left out', async () => {
    // 200,000 models are ~16 MB of JSON: a cap raised above it, so that maxModels is what cuts,
    // and time enough to read it on a busy machine (the list's 2 s bound is not what is tested).
    const { runtime, warnings, server } = await setUp({ maxResponseBytes: 64 * MiB, listTimeoutMs: 60_000 }, many);
    const models = await runtime.models();
    expect(models).toHaveLength(1_000);
    expect(models.map((model) => model.unique)).toEqual(many.slice(0, 1_000));
    expect(await runtime.models()).toHaveLength(1_000);
    expect(warnings).toEqual([`The server at ${server.baseUrl} lists 200000 models: only its first 1000 are listed (maxModels).`]);
  });

  it('keeps the service’s model list small', async () => {
    const { runtime } = await setUp({ maxResponseBytes: 64 * MiB, maxModels: 50, listTimeoutMs: 60_000 }, many);
    const service = await createService({ summarizer: createFakeSummarizer(), runtimes: [runtime] });
    const listed = await service.listModels();
    expect(listed.iterable).toHaveLength(51); // the embedded summarizer, and 50 of the server's
    // Each record is ~500 bytes: 50 of them stay under 100 kB, where 200,000 made 88 MB.
    expect(JSON.stringify(listed).length).toBeLessThan(100_000);
  });

  it('past maxResponseBytes is a failed listing: the models last seen are kept, not loaded, and the reason logged once', async () => {
    // Date.now is a clock the test moves: the list is kept a minute, a failed listing a second.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const { runtime, warnings, server } = await setUp({ listTtlMs: 60_000 }, ['llama3.2:latest', 'qwen2.5-coder:7b']);
    const listed = async () => (await runtime.models()).map((model) => [model.unique, model.loaded]);
    const lastSeen = [
      ['llama3.2:latest', false],
      ['qwen2.5-coder:7b', false],
    ];
    expect(await listed()).toEqual([
      ['llama3.2:latest', true],
      ['qwen2.5-coder:7b', true],
    ]);
    server.list(many);
    vi.advanceTimersByTime(60_000);
    expect(await listed()).toEqual(lastSeen);
    // Asked again a second later, still too large: not logged again.
    vi.advanceTimersByTime(1_000);
    expect(await listed()).toEqual(lastSeen);
    expect(warnings).toEqual([
      `The server at ${server.baseUrl} answered more than 1 MiB for its model list; answers are capped at maxResponseBytes. The models it listed last are kept.`,
    ]);
    // A failed listing is asked again after a second, not sooner.
    server.list(['llama3.2:latest']);
    vi.advanceTimersByTime(999);
    expect(await listed()).toEqual(lastSeen);
    vi.advanceTimersByTime(1);
    expect(await listed()).toEqual([['llama3.2:latest', true]]);
  });
});

it('refuses a cap that is not a positive number, which would let every answer through', () => {
  expect(() => createOpenAiCompatibleRuntime({ baseUrl: 'http://127.0.0.1:9/v1', maxResponseBytes: Number.NaN })).toThrow(RangeError);
});
