/**
 * `embeddings` search engines with an embedder: an in-process one whose vectors know synonyms
 * (what full text cannot find), and an OpenAI-compatible server on 127.0.0.1 (the fake of
 * test/helpers/openai-server.ts) through `createOpenAiCompatibleEmbedder`, as a user wires Ollama.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, type Embedder, SEARCH_BUDGET, type SearchInput, type Service } from '../../src/index.js';
import { createOpenAiCompatibleEmbedder } from '../../src/runtimes/openai-compatible.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { conversationWith, said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Words of the same meaning share a dimension; every other word has one of its own. */
const CONCEPTS: Record<string, number> = { car: 0, automobile: 0, vehicle: 0, bread: 1, loaf: 1, bake: 2, oven: 2 };
function conceptEmbedder(): Embedder & { calls: number; hold?: Promise<void> } {
  const embedder = {
    model: 'concepts',
    calls: 0,
    hold: undefined as Promise<void> | undefined,
    async embed(texts: readonly string[]) {
      embedder.calls++;
      await embedder.hold;
      return texts.map((text) => {
        const vector = new Float32Array(16);
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) vector[CONCEPTS[word] ?? 3 + (word.length % 13)]! += 1;
        return vector;
      });
    },
  };
  return embedder;
}

const byMeaning = (query: string): SearchInput => ({ engines: { iterable: [{ query, embeddings: { type: 'JINA' } }] } });
const ids = (answer: { iterable: { identifier: string }[] }) => answer.iterable.map((hit) => hit.identifier);

/** Asks until the answer's first hit is `id` (the vectors are made in the background), for at most 5 s. */
async function eventually(ask: () => Promise<string[]>, id: string): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = await ask();
    if (found[0] === id || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const services: Service[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

describe('embeddings engines with an embedder', () => {
  it('count comparing the query with every vector against the request’s postings budget', async () => {
    const embedder = conceptEmbedder();
    const service = await createService({ summarizer: createFakeSummarizer(), embedder, searchBudget: { ...SEARCH_BUDGET, postings: 3 } });
    services.push(service);
    const car = await conversationWith(service, said('USER', 'My car will not start'), said('ASSISTANT', 'Check the battery'));
    const carMessage = car.messages.iterable[0]!.id;
    // Two or three vectors (the messages, a name if it has one) of 16 numbers: a posting each, so one
    // search by meaning fits the budget of 3, two do not.
    expect(await eventually(async () => ids(await service.searchMessages(byMeaning('automobile'))), carMessage)).toEqual([carMessage]);
    const twice: SearchInput = {
      engines: { iterable: ['automobile', 'vehicle'].map((query) => ({ query, embeddings: { type: 'JINA' as const } })) },
    };
    await expect(service.searchMessages(twice)).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { budget: 'postings', limit: 3 },
    });
  });

  it('find by meaning what the words alone do not, ranked with the words', async () => {
    const service = await createService({ summarizer: createFakeSummarizer(), embedder: conceptEmbedder() });
    services.push(service);
    const car = await conversationWith(service, said('USER', 'My car will not start in the cold'));
    await conversationWith(service, said('USER', 'How long should I bake sourdough?'));
    const carMessage = car.messages.iterable[0]!.id;
    // The words: no message says "automobile".
    expect(ids(await service.searchMessages({ engines: { iterable: [{ query: 'automobile' }] } }))).toEqual([]);
    // The meaning: the car.
    expect(await eventually(async () => ids(await service.searchMessages(byMeaning('automobile'))), carMessage)).toEqual([carMessage]);
    const conversations = await service.searchConversations(byMeaning('vehicle'), { transferables: false });
    expect(ids(conversations)[0]).toBe(car.id);
    // The vectors know no times: a time range still keeps what it should.
    const later = { value: new Date(Date.now() + 86_400_000).toISOString() };
    const inFuture = {
      engines: { iterable: [{ query: 'automobile', embeddings: { type: 'JINA' as const }, temporal: { created: { from: later } } }] },
    };
    expect((await service.searchMessages(inFuture)).iterable).toEqual([]);
    const inPast = {
      engines: { iterable: [{ query: 'automobile', embeddings: { type: 'JINA' as const }, temporal: { created: { to: later } } }] },
    };
    expect(ids(await service.searchMessages(inPast))).toEqual([carMessage]);
  });

  it('never hold up a write: messages are stored while the embedder is still busy', async () => {
    const embedder = conceptEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const service = await createService({ summarizer: createFakeSummarizer(), embedder });
    services.push(service);
    const chat = await conversationWith(service, said('USER', 'bread loaf recipe'));
    // The embedder has the first message and does not answer: writes still go through.
    await until(() => embedder.calls > 0);
    await service.createMessage({
      conversation: { id: chat.id },
      role: 'ASSISTANT',
      fragment: { string: { raw: 'Use the oven at 230 degrees.' } },
    });
    // Full text finds them at once; by meaning, once the embedder answers.
    expect(ids(await service.searchMessages({ engines: { iterable: [{ query: 'oven' }] } }))).toHaveLength(1);
    release();
    const first = chat.messages.iterable[0]!.id;
    expect(await eventually(async () => ids(await service.searchMessages(byMeaning('loaf'))), first)).toContain(first);
  });

  it('keep their vectors across a restart: documents are not embedded again', async () => {
    const dataDir = await tempDir();
    const embedder = conceptEmbedder();
    const first = await createService({ dataDir, summarizer: createFakeSummarizer(), embedder });
    const car = (await conversationWith(first, said('USER', 'My car will not start'))).messages.iterable[0]!.id;
    expect(await eventually(async () => ids(await first.searchMessages(byMeaning('automobile'))), car)).toEqual([car]);
    await first.close();
    expect((await stat(path.join(dataDir, 'vectors-concepts.bin'))).size).toBeGreaterThan(0);

    const again = conceptEmbedder();
    const second = await createService({ dataDir, summarizer: createFakeSummarizer(), embedder: again });
    services.push(second);
    expect(ids(await second.searchMessages(byMeaning('automobile')))).toEqual([car]);
    // One call: the query's.
    expect(again.calls).toBe(1);
  });

  it('work through an OpenAI-compatible /embeddings, and fall back to full text when it fails', async () => {
    const server = await startOpenAiServer([]);
    const warnings: string[] = [];
    try {
      const service = await createService({
        summarizer: createFakeSummarizer(),
        embedder: createOpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'fake-embed:latest' }),
        logger: { warn: (message) => warnings.push(message) },
      });
      services.push(service);
      const chat = await conversationWith(
        service,
        said('USER', 'kubernetes pod keeps restarting'),
        said('ASSISTANT', 'check the liveness probe'),
      );
      const texts = () => server.embeddings.flatMap((request) => request.input);
      await until(() => texts().includes('check the liveness probe'));
      expect(texts()).toContain('kubernetes pod keeps restarting');
      expect(server.embeddings.every((request) => request.model === 'fake-embed:latest')).toBe(true);
      const pod = chat.messages.iterable[0]!.id;
      expect(ids(await service.searchMessages(byMeaning('kubernetes pod')))[0]).toBe(pod);
      expect(texts().at(-1)).toBe('kubernetes pod');

      // The server fails: the words still find it, and the log says the engine ran as full text, once.
      server.embed(() => ({ status: 500, body: 'model not loaded' }));
      expect(ids(await service.searchMessages(byMeaning('liveness probe')))).toEqual([chat.messages.iterable[1]!.id]);
      await service.searchMessages(byMeaning('liveness probe'));
      expect(warnings.filter((warning) => /ran as full text/.test(warning))).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

/** Waits until `condition` holds, for at most 5 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Waited 5 s in vain.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
