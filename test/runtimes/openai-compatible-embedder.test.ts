/**
 * The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1 that speaks the
 * embeddings API: vectors come back in input order (by `index`), the key goes as a bearer token,
 * and nothing the server answers is trusted: an error status, a wrong count, numbers that are not
 * numbers, vectors of different lengths, an answer past the cap and a server too slow all reject
 * with an Error that names what happened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiCompatibleEmbedder, type OpenAiCompatibleEmbedderOptions } from '../../src/runtimes/openai-compatible-embedder.js';
import { FAKE_DIMENSIONS, fakeEmbedding, startOpenAiServer } from '../helpers/openai-server.js';

type FakeServer = Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close().catch(() => undefined);
});

async function setUp(options: Partial<OpenAiCompatibleEmbedderOptions> = {}) {
  const server = await startOpenAiServer([]);
  servers.push(server);
  const embedder = createOpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'nomic-embed-text', ...options });
  return { server, embedder };
}

const signal = () => AbortSignal.timeout(10_000);
const vector = (values: number[]) => Float32Array.from(values);

describe('embedding', () => {
  it('posts the model and the texts to /embeddings and answers one Float32Array per text', async () => {
    const { server, embedder } = await setUp();
    const vectors = await embedder.embed(['Retry the payment API', 'Bake sourdough bread'], signal());
    expect(embedder.model).toBe('nomic-embed-text');
    expect(server.embeddings).toEqual([{ model: 'nomic-embed-text', input: ['Retry the payment API', 'Bake sourdough bread'] }]);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(vectors[0]).toHaveLength(FAKE_DIMENSIONS);
    expect(vectors[0]).toEqual(vector(fakeEmbedding('Retry the payment API')));
    expect(vectors[1]).toEqual(vector(fakeEmbedding('Bake sourdough bread')));
  });

  it('puts the vectors in input order by their index, whatever order the server lists them in', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({
      json: {
        data: [
          { index: 2, embedding: [0, 0, 3] },
          { index: 0, embedding: [1, 0, 0] },
          { index: 1, embedding: [0, 2, 0] },
        ],
      },
    }));
    expect(await embedder.embed(['a', 'b', 'c'], signal())).toEqual([vector([1, 0, 0]), vector([0, 2, 0]), vector([0, 0, 3])]);
  });

  it('takes the list order when the server leaves the indexes out', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ json: { data: [{ embedding: [1, 2] }, { embedding: [3, 4] }] } }));
    expect(await embedder.embed(['a', 'b'], signal())).toEqual([vector([1, 2]), vector([3, 4])]);
  });

  it('sends the key as a bearer token when there is one, and no Authorization header otherwise', async () => {
    const { server, embedder } = await setUp({ apiKey: 'sk-local' });
    await embedder.embed(['x'], signal());
    expect(server.embeddings[0]!.authorization).toBe('Bearer sk-local');
    const { server: open, embedder: keyless } = await setUp();
    await keyless.embed(['x'], signal());
    expect(open.embeddings[0]!.authorization).toBeUndefined();
  });

  it('asks nothing for no texts', async () => {
    const { server, embedder } = await setUp();
    expect(await embedder.embed([], signal())).toEqual([]);
    expect(server.embeddings).toEqual([]);
  });

  it('takes a base URL with a trailing slash', async () => {
    const { server } = await setUp();
    const embedder = createOpenAiCompatibleEmbedder({ baseUrl: `${server.baseUrl}/`, model: 'm' });
    expect(await embedder.embed(['x'], signal())).toHaveLength(1);
  });
});

describe('failures, each an Error that says what happened', () => {
  it('an error status: the status and the first 200 characters of the body', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ status: 500, body: `model not loaded ${'x'.repeat(1000)}` }));
    const error = await embedder.embed(['a'], signal()).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `The server at ${server.baseUrl} answered 500 for embedding model nomic-embed-text: model not loaded ${'x'.repeat(200 - 'model not loaded '.length)}`,
    );
  });

  it('a count of vectors other than the count of texts', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ json: { data: [{ index: 0, embedding: [1] }] } }));
    await expect(embedder.embed(['a', 'b'], signal())).rejects.toThrow(
      `The server at ${server.baseUrl} answered embeddings of model nomic-embed-text with 1 vectors for 2 texts.`,
    );
  });

  it('no data list, or an answer that is not JSON', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ json: { error: 'nope' } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/with no data list/);
    server.embed(() => ({ status: 200, body: '<html>proxy login</html>' }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(
      /answered something that is not JSON for embedding model nomic-embed-text: <html>proxy login<\/html>/,
    );
  });

  it('vectors of something other than numbers, or no vector at all', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ json: { data: [{ index: 0, embedding: [1, '2', 3] }] } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/a vector of something other than numbers for input 0/);
    server.embed(() => ({ json: { data: [{ index: 0, embedding: [1, null] }] } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/something other than numbers/);
    server.embed(() => ({ json: { data: [{ index: 0, embedding: 'AAAA' }] } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/no vector \(a list of numbers\) for input 0/);
    server.embed(() => ({ json: { data: [{ index: 0, embedding: [] }] } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/no vector/);
  });

  it('vectors of different lengths', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({
      json: {
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 1, embedding: [1, 2] },
        ],
      },
    }));
    await expect(embedder.embed(['a', 'b'], signal())).rejects.toThrow(/vectors of different lengths \(3 and 2\)/);
  });

  it('indexes that are not the inputs’: out of range, twice the same, not a whole number', async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({
      json: {
        data: [
          { index: 0, embedding: [1] },
          { index: 2, embedding: [1] },
        ],
      },
    }));
    await expect(embedder.embed(['a', 'b'], signal())).rejects.toThrow(/an index that is not one of the inputs' \(2\)/);
    server.embed(() => ({
      json: {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
    }));
    await expect(embedder.embed(['a', 'b'], signal())).rejects.toThrow(/two vectors for input 0/);
    server.embed(() => ({ json: { data: [{ index: 0.5, embedding: [1] }] } }));
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(/an index that is not one of the inputs'/);
  });

  it('an answer past maxResponseBytes: read no further, and said so', async () => {
    const { server, embedder } = await setUp({ maxResponseBytes: 4096 });
    // 64 dimensions of small numbers: ~200 bytes a vector, so 10 fit and 100 do not.
    expect(
      await embedder.embed(
        Array.from({ length: 10 }, (_, i) => `text ${i}`),
        signal(),
      ),
    ).toHaveLength(10);
    await expect(
      embedder.embed(
        Array.from({ length: 100 }, (_, i) => `text ${i}`),
        signal(),
      ),
    ).rejects.toThrow(
      `The server at ${server.baseUrl} answered more than 4 KiB for embedding model nomic-embed-text; answers are capped at maxResponseBytes.`,
    );
  });

  it('a server slower than timeoutMs', async () => {
    const { server, embedder } = await setUp({ timeoutMs: 200 });
    server.embed(() => ({ delayMs: 3_000 }));
    const started = Date.now();
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(
      `The server at ${server.baseUrl} did not answer within 0.2 s for embedding model nomic-embed-text.`,
    );
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("the caller's signal, combined with the timeout", async () => {
    const { server, embedder } = await setUp();
    server.embed(() => ({ delayMs: 3_000 }));
    const caller = new AbortController();
    const embedding = embedder.embed(['a', 'b'], caller.signal);
    setTimeout(() => caller.abort(), 50);
    await expect(embedding).rejects.toThrow(`The embedding of 2 texts with model nomic-embed-text at ${server.baseUrl} was aborted.`);
  });

  it('a server that cannot be reached', async () => {
    const embedder = createOpenAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    await expect(embedder.embed(['a'], signal())).rejects.toThrow(
      /^The OpenAI-compatible server at http:\/\/127\.0\.0\.1:9\/v1 cannot be reached \(/,
    );
  });

  it('options that would disable the cap or the timeout are refused', () => {
    expect(() => createOpenAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxResponseBytes: Number.NaN })).toThrow(
      RangeError,
    );
    expect(() => createOpenAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 0 })).toThrow(RangeError);
  });
});
