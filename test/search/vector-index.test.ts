/**
 * The index of vectors of meaning kept beside the full-text index: writes are queued, never held
 * up, and embedded in the background (here by the OpenAI-compatible embedder against a fake server
 * on 127.0.0.1 whose vectors are bags of words, so texts that share words are close); search by
 * cosine finds the closest documents, or conversations; a failing server is said once per streak
 * and retried with backoff; a write while its document is embedded wins; the vectors are saved,
 * loaded back, fitted to the text index's documents at start, and a damaged file is not used.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder, IndexedDocRef, RecordChange } from '../../src/ports.js';
import { createOpenAiCompatibleEmbedder } from '../../src/runtimes/openai-compatible-embedder.js';
import { VectorIndex } from '../../src/search/vector-index.js';
import type { Slices } from '../../src/slices.js';
import { fakeEmbedding, startOpenAiServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

type FakeServer = Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: FakeServer[] = [];
const indexes: VectorIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.close();
  for (const server of servers.splice(0)) await server.close().catch(() => undefined);
});

// Records as the store commits them: only what the documents are made of.
const message = (id: string, conversation: string, text: string, role = 'USER'): RecordChange => ({
  collection: 'messages',
  id,
  record: { id, conversation, role, fragment: { string: { raw: text } } },
});
const conversation = (id: string, name?: string): RecordChange => ({ collection: 'conversations', id, record: { id, name } });
const annotation = (id: string, conversation: string | undefined, text: string): RecordChange => ({
  collection: 'annotations',
  id,
  record: { id, conversation, text },
});
const deleted = (collection: RecordChange['collection'], id: string): RecordChange => ({ collection, id, record: null });

/** The texts the tests' "store" holds, by field and id, for `readTexts`. */
type Texts = Map<string, string>;
const textKey = (doc: IndexedDocRef) => `${doc.field}:${doc.id}`;

/** Settles `promise`, or fails naming `what` after `ms`: no wait in these tests is unbounded. */
async function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `condition` holds, checked every 5 ms; fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The cosine of the fake vectors of two texts, as the index should find it (clamped to 0–1). */
function cosine(a: string, b: string): number {
  const x = fakeEmbedding(a);
  const y = fakeEmbedding(b);
  let dot = 0;
  let xx = 0;
  let yy = 0;
  for (let i = 0; i < x.length; i++) {
    dot += x[i]! * y[i]!;
    xx += x[i]! * x[i]!;
    yy += y[i]! * y[i]!;
  }
  return Math.max(0, dot / Math.sqrt(xx * yy));
}

interface SetUp {
  file?: string;
  texts?: Texts;
  server?: FakeServer;
  embedder?: Embedder;
  batchSize?: number;
  maxTextChars?: number;
  retry?: { firstMs: number; maxMs: number };
  saveEvery?: { vectors: number; ms: number };
  model?: string;
}

async function setUp(options: SetUp = {}) {
  const server = options.server ?? (await startOpenAiServer([]));
  if (!options.server) servers.push(server);
  const warnings: string[] = [];
  const texts: Texts = options.texts ?? new Map();
  const reads: IndexedDocRef[][] = [];
  const index = new VectorIndex({
    embedder:
      options.embedder ??
      createOpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: options.model ?? 'nomic-embed-text', timeoutMs: 5_000 }),
    logger: { warn: (message) => warnings.push(message) },
    readTexts: async (docs) => {
      reads.push([...docs]);
      return docs.map((doc) => texts.get(textKey(doc)));
    },
    ...(options.file ? { file: options.file } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.maxTextChars ? { maxTextChars: options.maxTextChars } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.saveEvery ? { saveEvery: options.saveEvery } : {}),
  });
  indexes.push(index);
  return { server, index, warnings, reads, texts };
}

const idle = (index: VectorIndex) => within(index.idle(), 'the vector index going idle');
const messages = (index: VectorIndex, query: string, limit = 10, conversation?: string) =>
  within(index.search(query, { limit, scope: 'messages', ...(conversation ? { conversation } : {}) }), 'a search');
const ids = async (index: VectorIndex, query: string, limit = 10) => (await messages(index, query, limit))?.map((hit) => hit.id);

const PAYMENTS = 'How do I retry a flaky payment API call?';
const BREAD = 'What flour makes the best sourdough bread?';
const BACKOFF = 'Use exponential backoff when you retry the call';

describe('apply, then search', () => {
  it('queues writes without embedding them in the write, then finds the closest messages by meaning, best first', async () => {
    const { server, index } = await setUp();
    index.apply([message('m1', 'c1', PAYMENTS), message('m2', 'c2', BREAD), message('m3', 'c1', BACKOFF, 'ASSISTANT')]);
    // Nothing was asked in the write itself.
    expect(server.embeddings).toHaveLength(0);
    expect(index.pending).toBe(3);
    await idle(index);
    expect(index.pending).toBe(0);
    expect(index.size).toBe(3);
    expect(index.dimension).toBe(64);
    // One batch for the three.
    expect(server.embeddings.filter((request) => request.input.length > 1)).toHaveLength(1);

    const query = 'retry payment API';
    const hits = await messages(index, query);
    expect(hits?.map((hit) => hit.id)).toEqual(['m1', 'm3', 'm2']);
    expect(hits?.[0]).toEqual({ id: 'm1', conversation: 'c1', field: 'userMessage', similarity: expect.any(Number) });
    expect(hits?.[1]).toMatchObject({ id: 'm3', conversation: 'c1', field: 'message' });
    for (const [hit, text] of [
      [hits![0]!, PAYMENTS],
      [hits![1]!, BACKOFF],
      [hits![2]!, BREAD],
    ] as const)
      expect(hit.similarity).toBeCloseTo(cosine(query, text), 5);
    expect(hits![0]!.similarity).toBeGreaterThan(0.5);
    expect(await ids(index, query, 1)).toEqual(['m1']);
  });

  it('finds only messages in the messages scope, and only one conversation’s when asked', async () => {
    const { index } = await setUp();
    index.apply([
      conversation('c1', 'Payment API retries'),
      annotation('a1', 'c1', 'A summary about payment API retries'),
      message('m1', 'c1', PAYMENTS),
      message('m2', 'c2', 'Retry payment API from the queue worker'),
    ]);
    await idle(index);
    expect(index.size).toBe(4);
    expect(await ids(index, 'payment API retries')).toEqual(expect.arrayContaining(['m1', 'm2']));
    expect(await ids(index, 'payment API retries')).toHaveLength(2);
    expect((await messages(index, 'payment API retries', 10, 'c2'))?.map((hit) => hit.id)).toEqual(['m2']);
  });

  it('groups by conversation in the conversations scope: one hit each, as close as its closest document', async () => {
    const { index } = await setUp();
    index.apply([
      conversation('c1', 'Bread baking'),
      message('m1', 'c1', BREAD),
      message('m2', 'c1', 'Knead the dough and let it rise overnight', 'ASSISTANT'),
      conversation('c2', 'Flaky payment API'),
      message('m3', 'c2', PAYMENTS),
      conversation('c3', ''),
      annotation('a1', 'c3', 'Summary: retry the payment call with backoff'),
      annotation('a2', undefined, 'payment API retry notes, of no conversation'),
    ]);
    await idle(index);
    const query = 'retry payment API';
    const hits = await within(index.search(query, { limit: 10, scope: 'conversations' }), 'a search');
    expect(hits?.map((hit) => hit.id)).toEqual(['c2', 'c3', 'c1']);
    // Its name is closer than its message: the name is the hit's field.
    expect(hits?.[0]).toEqual({ id: 'c2', conversation: 'c2', field: 'name', similarity: expect.any(Number) });
    expect(hits![0]!.similarity).toBeCloseTo(Math.max(cosine(query, PAYMENTS), cosine(query, 'Flaky payment API')), 5);
    expect(hits?.[1]).toMatchObject({ id: 'c3', field: 'annotation' });
    expect(hits![1]!.similarity).toBeCloseTo(cosine(query, 'Summary: retry the payment call with backoff'), 5);
    expect((await index.search(query, { limit: 1, scope: 'conversations' }))?.map((hit) => hit.id)).toEqual(['c2']);
    expect((await index.search(query, { limit: 10, scope: 'conversations', conversation: 'c1' }))?.map((hit) => hit.id)).toEqual(['c1']);
  });

  it('clamps similarities to 0–1: a vector pointing away counts 0', async () => {
    const vectors: Record<string, number[]> = { up: [1, 0], down: [-1, 0], side: [0, 1], 'query up': [2, 0] };
    const embedder: Embedder = {
      model: 'two-d',
      embed: async (texts) => texts.map((text) => Float32Array.from(vectors[text]!)),
    };
    const { index } = await setUp({ embedder });
    index.apply([message('up', 'c', 'up'), message('down', 'c', 'down'), message('side', 'c', 'side')]);
    await idle(index);
    expect(await messages(index, 'query up')).toEqual([
      { id: 'up', conversation: 'c', field: 'userMessage', similarity: 1 },
      { id: 'side', conversation: 'c', field: 'userMessage', similarity: 0 },
      { id: 'down', conversation: 'c', field: 'userMessage', similarity: 0 },
    ]);
  });

  it('answers undefined when the query cannot be embedded, so the caller searches by words', async () => {
    const { server, index } = await setUp({ retry: { firstMs: 10_000, maxMs: 10_000 } });
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await idle(index);
    expect(await messages(index, '   ')).toBeUndefined();
    server.embed(() => ({ status: 500, body: 'down' }));
    expect(await messages(index, 'payment')).toBeUndefined();
  });

  it('answers no hits, not an error, when nothing has a vector yet', async () => {
    const { index } = await setUp();
    expect(await messages(index, 'payment')).toEqual([]);
  });

  it('cuts long texts to maxTextChars before embedding them', async () => {
    const { server, index } = await setUp({ maxTextChars: 100 });
    index.apply([message('m1', 'c1', 'word '.repeat(1_000))]);
    await idle(index);
    expect(server.embeddings[0]!.input[0]).toHaveLength(100);
  });

  it('embeds in batches of batchSize', async () => {
    const { server, index } = await setUp({ batchSize: 2 });
    index.apply(Array.from({ length: 5 }, (_, i) => message(`m${i}`, 'c', `message number ${i}`)));
    await idle(index);
    expect(server.embeddings.map((request) => request.input.length)).toEqual([2, 2, 1]);
    expect(index.size).toBe(5);
  });
});

describe('a search over many vectors', () => {
  /** A clock whose every slice is over: the pass pauses at each point where it may. */
  const pausing = () => {
    let pauses = 0;
    return {
      get pauses() {
        return pauses;
      },
      slices: {
        get due() {
          return true;
        },
        next: () => {
          pauses++;
          return new Promise<void>((resolve) => setImmediate(resolve));
        },
      } as unknown as Slices,
    };
  };

  it('gives other work a turn while it compares the query with every vector', async () => {
    const { index } = await setUp({ batchSize: 256 });
    index.apply(Array.from({ length: 1_000 }, (_, i) => message(`m${i}`, `c${i % 50}`, `${BREAD} ${i}`)));
    await idle(index);
    const clock = pausing();
    let otherWork = false;
    setImmediate(() => {
      otherWork = true;
    });
    const search = index.search(BREAD, { limit: 5, scope: 'messages', slices: clock.slices });
    const hits = await within(search, 'a search');
    expect(otherWork).toBe(true);
    // A pause at every 256 rows of the 1,000.
    expect(clock.pauses).toBe(4);
    expect(hits).toHaveLength(5);
    const conversations = await within(index.search(BREAD, { limit: 5, scope: 'conversations', slices: pausing().slices }), 'a search');
    expect(conversations).toHaveLength(5);
  });

  it('names each hit by the document its vector was scored from, when rows change hands while it pauses', async () => {
    const { index } = await setUp({ batchSize: 512 });
    index.apply(Array.from({ length: 600 }, (_, i) => message(`m${i}`, 'c1', i === 0 ? PAYMENTS : `${BREAD} ${i}`)));
    await idle(index);
    // At its second pause (rows 0–255 compared), the best match's row is freed and given to a
    // document about bread, embedded before the pass goes on.
    let pauses = 0;
    const slices = {
      get due() {
        return true;
      },
      next: async () => {
        if (++pauses !== 2) return;
        index.apply([deleted('messages', 'm0'), message('bread-late', 'c1', BREAD)]);
        await idle(index);
      },
    } as unknown as Slices;
    const [hit] = (await within(index.search(PAYMENTS, { limit: 1, scope: 'messages', slices }), 'a search'))!;
    expect(pauses).toBeGreaterThan(2);
    // Row 0 now holds bread-late's vector; the hit found in it before is m0's, as it was scored.
    expect(hit).toMatchObject({ id: 'm0', similarity: expect.closeTo(cosine(PAYMENTS, PAYMENTS), 5) });
  });

  it('counts its comparisons with the postings of a search request', async () => {
    const { index } = await setUp();
    index.apply(Array.from({ length: 300 }, (_, i) => message(`m${i}`, 'c1', `${BREAD} ${i}`)));
    await idle(index);
    // 300 vectors of 64 numbers: a row of up to 256 numbers costs one posting.
    expect(index.searchCost).toBe(300);
  });
});

describe('writes', () => {
  it('drops the vector of a removed document, and a queued one before it is embedded', async () => {
    const { server, index } = await setUp();
    index.apply([message('m1', 'c1', PAYMENTS), message('m2', 'c1', BACKOFF)]);
    await idle(index);
    index.apply([deleted('messages', 'm1')]);
    expect(index.size).toBe(1);
    expect(await ids(index, 'retry payment API')).toEqual(['m2']);

    index.apply([message('m3', 'c1', 'queued then deleted'), deleted('messages', 'm3')]);
    expect(index.pending).toBe(0);
    await idle(index);
    expect(server.embeddings.flatMap((request) => request.input)).not.toContain('queued then deleted');
  });

  it('replaces the vector of a document written with a new text, and drops the old one at once', async () => {
    const { index } = await setUp();
    index.apply([message('m1', 'c1', PAYMENTS), message('m2', 'c1', BREAD)]);
    await idle(index);
    expect(await ids(index, 'sourdough flour', 1)).toEqual(['m2']);
    index.apply([message('m2', 'c1', 'Rotate the API keys of the payment provider')]);
    // The vector of the text before would find it by a meaning it no longer has.
    expect(index.size).toBe(1);
    await idle(index);
    expect(index.size).toBe(2);
    expect((await messages(index, 'sourdough flour'))?.find((hit) => hit.id === 'm2')?.similarity).toBeCloseTo(
      cosine('sourdough flour', 'Rotate the API keys of the payment provider'),
      5,
    );
    expect(await ids(index, 'rotate keys provider', 1)).toEqual(['m2']);
  });

  it('does not embed again a document written again with the same text, but follows its new conversation', async () => {
    const { server, index } = await setUp();
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await idle(index);
    const asked = server.embeddings.length;
    index.apply([message('m1', 'c2', PAYMENTS)]);
    expect(index.pending).toBe(0);
    await idle(index);
    expect(server.embeddings).toHaveLength(asked);
    expect(await messages(index, 'payment')).toMatchObject([{ id: 'm1', conversation: 'c2' }]);
  });

  it('follows a message whose role changed to the other field', async () => {
    const { index } = await setUp();
    index.apply([message('m1', 'c1', PAYMENTS, 'USER')]);
    await idle(index);
    index.apply([message('m1', 'c1', PAYMENTS, 'ASSISTANT')]);
    await idle(index);
    expect(index.size).toBe(1);
    expect(await messages(index, 'payment')).toMatchObject([{ id: 'm1', field: 'message' }]);
  });

  it('drops the vector of a document whose text became empty (a conversation renamed to nothing)', async () => {
    const { index } = await setUp();
    index.apply([conversation('c1', 'Payment API retries')]);
    await idle(index);
    expect(index.size).toBe(1);
    index.apply([conversation('c1', '')]);
    expect(index.size).toBe(0);
    expect(index.pending).toBe(0);
  });

  it('lets a write that comes while its document is embedded win over the vector of the text before', async () => {
    let release: () => void = () => undefined;
    const calls: string[][] = [];
    const embedder: Embedder = {
      model: 'held',
      embed: async (texts) => {
        calls.push([...texts]);
        // The first call is held until the test lets it go.
        if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return texts.map((text) => Float32Array.from(fakeEmbedding(text)));
      },
    };
    const { index } = await setUp({ embedder });
    index.apply([message('m1', 'c1', BREAD), message('m2', 'c1', 'kept as it is')]);
    await until(() => calls.length === 1, 'the first batch to be asked');
    index.apply([message('m1', 'c1', PAYMENTS)]);
    release();
    await idle(index);
    expect(calls).toEqual([[BREAD, 'kept as it is'], [PAYMENTS]]);
    expect(await ids(index, 'retry payment API', 1)).toEqual(['m1']);
    expect((await messages(index, 'sourdough flour'))?.find((hit) => hit.id === 'm1')?.similarity).toBeCloseTo(
      cosine('sourdough flour', PAYMENTS),
      5,
    );

    // A removal meanwhile wins too.
    calls.length = 0;
    index.apply([message('m3', 'c1', 'removed while embedded')]);
    await until(() => calls.length === 1, 'the batch to be asked');
    index.apply([deleted('messages', 'm3')]);
    release();
    await idle(index);
    expect(index.size).toBe(2);
  });
});

describe('a failing embedder', () => {
  it('is said once per streak of failures, retried with backoff, and its documents embedded once it answers', async () => {
    const { server, index, warnings } = await setUp({ retry: { firstMs: 40, maxMs: 160 } });
    const times: number[] = [];
    server.embed(() => {
      times.push(Date.now());
      return { status: 500, body: 'model not loaded' };
    });
    index.apply([message('m1', 'c1', PAYMENTS), message('m2', 'c1', BREAD)]);
    await until(() => times.length >= 5, 'five tries');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^Vectors of meaning cannot be made with model nomic-embed-text \(The server at .* answered 500 for embedding model nomic-embed-text: model not loaded\): 2 documents wait/,
    );
    // Waits of 40, 80, 160 and 160 ms (a timer never fires early; later, on a busy machine).
    const gaps = times.slice(1).map((time, i) => time - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(35);
    expect(gaps[1]).toBeGreaterThanOrEqual(75);
    expect(gaps[2]).toBeGreaterThanOrEqual(155);
    expect(gaps[3]).toBeGreaterThanOrEqual(155);
    expect(index.pending).toBe(2);
    expect(index.size).toBe(0);

    server.embed(() => 'vectors');
    await idle(index);
    expect(index.size).toBe(2);
    expect(await ids(index, 'retry payment API', 1)).toEqual(['m1']);
    expect(warnings).toHaveLength(1);

    // A new streak is said again.
    server.embed(() => ({ status: 503, body: 'busy' }));
    index.apply([message('m3', 'c1', BACKOFF)]);
    await until(() => warnings.length === 2, 'the second streak to be said');
    expect(warnings[1]).toMatch(/answered 503/);
  });

  it('is not asked at every write while a retry waits', async () => {
    const { server, index, warnings } = await setUp({ retry: { firstMs: 400, maxMs: 400 } });
    server.embed(() => ({ status: 500, body: 'down' }));
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await until(() => warnings.length === 1, 'the failure to be said');
    for (let i = 0; i < 5; i++) index.apply([message(`n${i}`, 'c1', `write ${i}`)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.embeddings).toHaveLength(1);
    expect(index.pending).toBe(6);
  });

  it('is aborted by close, and close does not wait for it', async () => {
    const { server, index } = await setUp();
    server.embed(() => ({ delayMs: 3_000 }));
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await until(() => server.embeddings.length === 1, 'the batch to be asked');
    const started = Date.now();
    await within(index.close(), 'close');
    expect(Date.now() - started).toBeLessThan(1_000);
    await idle(index);
    expect(index.size).toBe(0);
    // Closed: writes are not taken any more.
    index.apply([message('m2', 'c1', BREAD)]);
    expect(index.pending).toBe(1);
  });
});

describe('the file', () => {
  async function saved(options: Partial<SetUp> = {}) {
    const dir = await tempDir();
    const file = path.join(dir, 'vectors');
    const first = await setUp({ file, ...options });
    first.index.apply([
      conversation('c1', 'Payment API'),
      message('m1', 'c1', PAYMENTS),
      message('m2', 'c1', BACKOFF, 'ASSISTANT'),
      conversation('c2', 'Bread'),
      message('m3', 'c2', BREAD),
    ]);
    await idle(first.index);
    const answers = {
      messages: await messages(first.index, 'retry payment API'),
      conversations: await first.index.search('sourdough bread', { limit: 5, scope: 'conversations' }),
    };
    await first.index.close();
    return { file, answers, server: first.server };
  }

  it('is written at close and read back: the same answers, no document embedded again', async () => {
    const { file, answers, server } = await saved();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { index, warnings } = await setUp({ file, server });
    await within(index.load(), 'load');
    expect(warnings).toEqual([]);
    expect(index.size).toBe(5);
    const asked = server.embeddings.length;
    const docs: IndexedDocRef[] = [
      { field: 'name', id: 'c1', conversation: 'c1' },
      { field: 'name', id: 'c2', conversation: 'c2' },
      { field: 'userMessage', id: 'm1', conversation: 'c1' },
      { field: 'message', id: 'm2', conversation: 'c1' },
      { field: 'userMessage', id: 'm3', conversation: 'c2' },
    ];
    index.reconcile(docs);
    await idle(index);
    expect(server.embeddings).toHaveLength(asked);
    expect(await messages(index, 'retry payment API')).toEqual(answers.messages);
    expect(await index.search('sourdough bread', { limit: 5, scope: 'conversations' })).toEqual(answers.conversations);
  });

  it('is not used when it was made by another model: the index starts empty, and says so', async () => {
    const { file, server } = await saved();
    const { index, warnings } = await setUp({ file, server, model: 'all-minilm' });
    await index.load();
    expect(index.size).toBe(0);
    expect(warnings).toEqual([
      `The vector index ${file} cannot be used (its vectors are of model "nomic-embed-text", not "all-minilm"): its vectors are made again.`,
    ]);
  });

  it('is not used when damaged or cut short: the index starts empty, and says so', async () => {
    const { file, server } = await saved();
    const bytes = await readFile(file);
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 10]! ^= 0xff;
    await writeFile(file, damaged);
    const { index, warnings } = await setUp({ file, server });
    await index.load();
    expect(index.size).toBe(0);
    expect(warnings).toEqual([
      `The vector index ${file} cannot be used (its checksum does not match: it is damaged): its vectors are made again.`,
    ]);

    await writeFile(file, bytes.subarray(0, bytes.length - 3));
    const second = await setUp({ file, server });
    await second.index.load();
    expect(second.index.size).toBe(0);
    expect(second.warnings[0]).toMatch(/cut short/);

    await writeFile(file, 'not an index at all');
    const third = await setUp({ file, server });
    await third.index.load();
    expect(third.warnings[0]).toMatch(/it is not a vector index/);
  });

  it('is no warning when there is none yet', async () => {
    const dir = await tempDir();
    const { index, warnings } = await setUp({ file: path.join(dir, 'vectors') });
    await index.load();
    expect(index.size).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('is saved by the worker after every saveEvery.vectors new vectors', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'vectors');
    const { index, server } = await setUp({ file, saveEvery: { vectors: 2, ms: 0 } });
    index.apply([message('m1', 'c1', PAYMENTS), message('m2', 'c1', BREAD)]);
    await idle(index);
    const { index: reader } = await setUp({ file, server });
    await reader.load();
    expect(reader.size).toBe(2);
  });
});

describe('reconcile', () => {
  it('drops vectors of documents the text index does not hold, and queues the ones without a vector, read in batches', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'vectors');
    const first = await setUp({ file });
    first.index.apply([message('m1', 'c1', PAYMENTS), message('gone', 'c1', 'deleted while the vectors were not saved')]);
    await idle(first.index);
    await first.index.close();

    const texts: Texts = new Map([
      ['userMessage:m1', PAYMENTS],
      ...Array.from({ length: 5 }, (_, i) => [`userMessage:n${i}`, `new message ${i} about sourdough bread`] as [string, string]),
      ['name:c1', ''],
    ]);
    const { index, reads, server } = await setUp({ file, texts, batchSize: 2, server: first.server });
    await index.load();
    expect(index.size).toBe(2);
    const docs: IndexedDocRef[] = [
      { field: 'userMessage', id: 'm1', conversation: 'c1' },
      ...Array.from({ length: 5 }, (_, i) => ({ field: 'userMessage' as const, id: `n${i}`, conversation: 'c2' })),
      // Empty (no text to embed), and gone by the time it is read.
      { field: 'name', id: 'c1', conversation: 'c1' },
      { field: 'annotation', id: 'vanished', conversation: 'c1' },
    ];
    const asked = server.embeddings.length;
    index.reconcile(docs);
    expect(index.size).toBe(1);
    expect(index.pending).toBe(7);
    // Nothing read yet: texts are read as the worker goes.
    expect(reads).toEqual([]);
    await idle(index);
    expect(reads.map((batch) => batch.length)).toEqual([2, 2, 2, 1]);
    expect(reads.flat().map((doc) => doc.id)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'c1', 'vanished']);
    expect(server.embeddings.slice(asked).flatMap((request) => request.input)).toHaveLength(5);
    expect(index.size).toBe(6);
    expect(index.pending).toBe(0);
    const hits = await messages(index, 'deleted while the vectors were not saved');
    expect(hits?.map((hit) => hit.id)).not.toContain('gone');
    expect(await ids(index, 'sourdough bread', 5)).toEqual(expect.arrayContaining(['n0', 'n1', 'n2', 'n3', 'n4']));
  });

  it('lets a write that came after the docs were listed win over reading the text', async () => {
    const { index, reads, texts } = await setUp();
    texts.set('userMessage:m1', 'the text of the store');
    index.reconcile([{ field: 'userMessage', id: 'm1', conversation: 'c1' }]);
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await idle(index);
    expect(reads).toEqual([]);
    expect(await ids(index, 'retry payment API', 1)).toEqual(['m1']);
  });
});

describe('a model whose vectors change length', () => {
  it('has the vectors made before made again, and says so', async () => {
    let dimension = 64;
    const embedder: Embedder = {
      model: 'resized',
      embed: async (texts) => texts.map((text) => Float32Array.from(fakeEmbedding(text).slice(0, dimension))),
    };
    const texts: Texts = new Map([['userMessage:m1', PAYMENTS]]);
    const { index, warnings } = await setUp({ embedder, texts });
    index.apply([message('m1', 'c1', PAYMENTS)]);
    await idle(index);
    dimension = 32;
    index.apply([message('m2', 'c1', BREAD)]);
    await idle(index);
    expect(index.dimension).toBe(32);
    expect(index.size).toBe(2);
    expect(warnings).toEqual([
      'The embedding model resized now makes vectors of 32 numbers, not 64: the 1 vectors made before are made again.',
    ]);
    expect(await ids(index, 'retry payment API', 1)).toEqual(['m1']);
  });
});
