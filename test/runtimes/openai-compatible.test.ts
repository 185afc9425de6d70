/**
 * The OpenAI-compatible runtime against a real HTTP server on 127.0.0.1 that speaks the protocol:
 * its models are listed, the conversation's model (or the default one) writes titles and
 * summaries, output is cleaned, and every failure (an error, a slow answer, garbage, an unfinished
 * `<think>`, the server going away) falls back to the embedded summarizer, logged, with the
 * annotation saying who wrote it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createService, type Service, type ServiceOptions } from '../../src/index.js';
import { createOpenAiCompatibleRuntime } from '../../src/runtimes/openai-compatible.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { said, seededModel } from '../helpers/service.js';

type FakeServer = Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close().catch(() => undefined);
});

async function setUp(options: Partial<ServiceOptions> & { apiKey?: string } = {}) {
  const server = await startOpenAiServer(['llama3.2:latest', 'qwen2.5-coder:7b']);
  servers.push(server);
  const warnings: string[] = [];
  const summarizer = createFakeSummarizer({ title: 'Embedded title', summary: 'The embedded summarizer wrote this summary.' });
  const runtime = createOpenAiCompatibleRuntime({
    baseUrl: server.baseUrl,
    listTtlMs: 0,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  const service = await createService({
    summarizer,
    runtimes: [runtime],
    logger: { warn: (message) => warnings.push(message) },
    ...options,
  });
  return { server, service, warnings, summarizer };
}

const conversationOn = (service: Service, model?: string) =>
  service.createConversation({
    type: 'COPILOT',
    ...(model ? { model: { id: model } } : {}),
    messages: [
      said('USER', 'How do I retry a flaky payment API in TypeScript?'),
      said('ASSISTANT', 'Use exponential backoff with jitter and cap the attempts.'),
    ],
  });

const annotationOf = async (service: Service, conversation: string, annotation: string) =>
  (await service.getConversation(conversation)).annotations.iterable.find((a) => a.id === annotation)?.reference;

describe('listing', () => {
  it("lists the server's models beside the built-in one: not custom, conversation models, by their own name", async () => {
    const { service } = await setUp();
    const models = (await service.listModels()).iterable;
    const llama = models.find((model) => model.unique === 'llama3.2:latest');
    expect(llama).toMatchObject({
      id: 'openai:llama3.2:latest',
      custom: false,
      usage: 'CODE_CONVERSATION',
      cloud: false,
      loaded: true,
      name: 'llama3.2:latest',
    });
    expect(models.map((model) => model.id)).toEqual(['fake-summarizer', 'openai:llama3.2:latest', 'openai:qwen2.5-coder:7b']);
  });

  it('keeps listing what it last saw, not loaded, when the server is down; never an error', async () => {
    const { service, server } = await setUp();
    await service.listModels();
    await server.close();
    const models = (await service.listModels()).iterable;
    expect(models.find((model) => model.unique === 'llama3.2:latest')).toMatchObject({ loaded: false });
  });

  it('answers no models, and no error, for a server never reached', async () => {
    const runtime = createOpenAiCompatibleRuntime({ baseUrl: 'http://127.0.0.1:9/v1' });
    const service = await createService({ summarizer: createFakeSummarizer(), runtimes: [runtime] });
    expect((await service.listModels()).iterable.map((model) => model.id)).toEqual(['fake-summarizer']);
  });
});

describe('writing with the conversation’s model', () => {
  it('renames with the model, cleaning its answer, and sends the API key', async () => {
    const { service, server } = await setUp({ apiKey: 'secret' });
    server.answer(() => '<think>The user wants retries.</think>\nTitle: "Retrying flaky payment calls."');
    const conversation = await conversationOn(service, 'openai:llama3.2:latest');
    const renamed = await service.renameConversation(conversation.id);
    expect(renamed.name).toBe('Retrying flaky payment calls');
    const chat = server.chats.at(-1)!;
    expect(chat.model).toBe('llama3.2:latest');
    expect(chat.authorization).toBe('Bearer secret');
    expect(chat.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/title only: 2 to 8 words/) });
    expect(chat.messages[1]!.content).toContain('User: How do I retry a flaky payment API in TypeScript?');
  });

  it('summarizes with the model; the annotation names the model that wrote it', async () => {
    const { service, server } = await setUp();
    server.answer(
      () => '## Summary\nThe user asked how to retry a flaky payment API. The assistant suggested exponential backoff with jitter.',
    );
    const conversation = await conversationOn(service, 'openai:qwen2.5-coder:7b');
    const { annotation } = await service.summarizeConversation(conversation.id);
    expect(await annotationOf(service, conversation.id, annotation.id)).toMatchObject({
      text: 'The user asked how to retry a flaky payment API. The assistant suggested exponential backoff with jitter.',
      model: { id: 'openai:qwen2.5-coder:7b' },
    });
  });

  it('runs a custom model whose `unique` names one of the server’s models', async () => {
    const { service, server } = await setUp();
    server.answer(() => 'Payment API retries');
    const custom = await service.createModel(seededModel({ name: 'My local Llama', unique: 'llama3.2:latest' }));
    const conversation = await conversationOn(service);
    await service.updateConversation({ id: conversation.id, model: { id: custom.id } });
    expect((await service.renameConversation(conversation.id)).name).toBe('Payment API retries');
    expect(server.chats.at(-1)?.model).toBe('llama3.2:latest');
  });

  it('uses the default model, by id or by name, when the conversation names none', async () => {
    for (const defaultModel of ['openai:llama3.2:latest', 'llama3.2:latest']) {
      const { service, server } = await setUp({ defaultModel });
      server.answer(() => 'Default model title');
      expect((await service.renameConversation((await conversationOn(service)).id)).name).toBe('Default model title');
    }
  });

  it('fits a long conversation to the model’s context: the first request and the latest messages, the middle marked', async () => {
    const { service, server } = await setUp();
    server.answer(() => 'Long chat title');
    const custom = await service.createModel(
      seededModel({ name: 'Small context', unique: 'llama3.2:latest', maxTokens: { total: 2_048, input: 1_500 } }),
    );
    const messages = Array.from({ length: 400 }, (_, i) => said(i % 2 ? 'ASSISTANT' : 'USER', `message ${i} `.padEnd(200, 'x')));
    const conversation = await service.createConversation({ type: 'COPILOT', model: { id: custom.id }, messages });
    await service.renameConversation(conversation.id);
    const prompt = server.chats.at(-1)!.messages[1]!.content;
    expect(prompt.length).toBeLessThan(1_500 * 3);
    expect(prompt).toContain('User: message 0 ');
    expect(prompt).toContain('Assistant: message 399 ');
    expect(prompt).toMatch(/\[… \d+ messages left out here …\]/);
    expect(prompt).not.toContain('message 200 ');
  });
});

describe('falling back to the embedded summarizer', () => {
  const failures: [string, (server: FakeServer) => void][] = [
    ['an error answer', (server) => server.answer(() => ({ status: 500, body: '{"error":"model crashed"}' }))],
    ['an answer slower than the timeout', (server) => server.answer(() => ({ delayMs: 1_500, text: 'Too late' }))],
    ['an empty answer', (server) => server.answer(() => '   ')],
    ['an unfinished <think>', (server) => server.answer(() => '<think>Let me think about this for a very long time')],
    ['garbage that is not a chat completion', (server) => server.answer(() => ({ status: 200, body: 'not json at all' }))],
    ['an over-long answer', (server) => server.answer(() => 'This goes on and on. '.repeat(200))],
    ['the server going away', (server) => void server.close()],
  ];
  for (const [what, breakIt] of failures) {
    it(`after ${what}: the title and summary come from the embedded summarizer, and the reason is logged`, async () => {
      const { service, server, warnings } = await setUp({ generationTimeoutMs: 500 });
      const conversation = await conversationOn(service, 'openai:llama3.2:latest');
      breakIt(server);
      expect((await service.renameConversation(conversation.id)).name).toBe('Embedded title');
      const { annotation } = await service.summarizeConversation(conversation.id);
      expect(await annotationOf(service, conversation.id, annotation.id)).toMatchObject({ model: { id: 'fake-summarizer' } });
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(/Model openai:llama3\.2:latest .*(title).*embedded summarizer wrote it/s);
    });
  }

  it('names the reason: the status, the timeout, the unreachable server', async () => {
    const { service, server, warnings } = await setUp({ generationTimeoutMs: 300 });
    const conversation = await conversationOn(service, 'openai:llama3.2:latest');
    server.answer(() => ({ status: 503, body: 'loading model' }));
    await service.renameConversation(conversation.id);
    server.answer(() => ({ delayMs: 1_000, text: 'late' }));
    await service.renameConversation(conversation.id);
    await server.close();
    await service.renameConversation(conversation.id);
    expect(warnings[0]).toMatch(/answered 503.*loading model/);
    expect(warnings[1]).toMatch(/did not answer in time/);
    expect(warnings[2]).toMatch(/cannot be reached/);
  });

  it('writes with the embedded summarizer, asking no server, when the conversation’s model has no runtime', async () => {
    const { service, server, warnings } = await setUp();
    const conversation = await conversationOn(service, 'fake-summarizer');
    expect((await service.renameConversation(conversation.id)).name).toBe('Embedded title');
    expect(server.chats).toHaveLength(0);
    expect(warnings).toEqual([]);
  });
});
