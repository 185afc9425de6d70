import { describe, expect, it } from 'vitest';
import { createMemoryRepository, type ReadView, type Transaction } from '../../src/index.js';
import { type CachedJson, ConversationJsonCache, readStamps } from '../../src/render/json-cache.js';
import { ChangeEmitter } from '../../src/stores/change-emitter.js';
import { conversationRecord, messageRecord, sampleRecord } from '../helpers/records.js';

const annotationRecord = (id: string) => sampleRecord('annotations', id);

async function storeOf(count: number) {
  const repository = createMemoryRepository();
  const ids = Array.from({ length: count }, (_, i) => `c-${i}`);
  await repository.transact((tx) => ids.forEach((id) => tx.put('conversations', conversationRecord(id))));
  const view = () => repository.read((v) => v);
  return { repository, ids, view };
}

/** What a read through the cache does: answer the cached JSON, or render (here: a stand-in) and offer it. */
async function read(cache: ConversationJsonCache, view: ReadView, id: string, json = `{"id":"${id}"}`): Promise<'hit' | 'miss'> {
  if ((await cache.get(view, id, 'f')) !== undefined) return 'hit';
  cache.set((await readStamps(view, id))!, 'f', { json }, cache.begin(id));
  return 'miss';
}

/** A cached answer's text. */
const textOf = (cached: CachedJson | undefined) => cached && Buffer.from(cached.bytes).toString();

/** Reads one after another, in order (as clients that wait for each answer). */
async function inTurn(cache: ConversationJsonCache, view: ReadView, ids: readonly string[], json: string): Promise<('hit' | 'miss')[]> {
  const outcomes: ('hit' | 'miss')[] = [];
  for (const id of ids) outcomes.push(await read(cache, view, id, json));
  return outcomes;
}

describe('ConversationJsonCache', () => {
  it('answers a conversation from the cache until it changes', async () => {
    const { repository, view } = await storeOf(1);
    const cache = new ConversationJsonCache(1024 * 1024);

    expect(await read(cache, await view(), 'c-0')).toBe('miss');
    expect(await read(cache, await view(), 'c-0')).toBe('hit');
    expect(await cache.get(await view(), 'c-0', 't')).toBeUndefined(); // another rendering is its own entry

    await repository.transact((tx) => tx.put('conversations', conversationRecord('c-0', 'renamed')));
    expect(await read(cache, await view(), 'c-0')).toBe('miss');
    expect(await read(cache, await view(), 'c-0')).toBe('hit');
  });

  it('keeps every conversation while they fit, whatever their size', async () => {
    const { ids, view } = await storeOf(500);
    const cache = new ConversationJsonCache(500 * 400);
    const v = await view();
    const outcomes = () => inTurn(cache, v, ids, 'x'.repeat(400));

    expect(await outcomes()).not.toContain('hit');
    expect(await outcomes()).not.toContain('miss');
  });

  it('once full, keeps its entries through reads spread over more conversations than it holds', async () => {
    const { ids, view } = await storeOf(40);
    // Room for 8 conversations.
    const cache = new ConversationJsonCache(8 * 4000);
    const v = await view();
    const outcomes = (order: string[]) => inTurn(cache, v, order, 'x'.repeat(4000));
    const [hot, filler, others] = [ids.slice(0, 4), ids.slice(4, 8), ids.slice(8)];

    expect(await outcomes([...hot, ...filler])).not.toContain('hit'); // now full
    expect(await outcomes(hot)).toEqual(hot.map(() => 'hit'));
    // A scan over the 32 others, twice: each comes back after 31 others, later than an entry of a
    // cache of 8 could be hit, so none displaces anything...
    expect(await outcomes([...others, ...others])).not.toContain('hit');
    expect(await outcomes([...hot, ...filler])).not.toContain('miss');
    // ...while one read again soon does.
    expect(await outcomes([others[0]!, others[1]!, others[0]!, others[0]!])).toEqual(['miss', 'miss', 'miss', 'hit']);
  });

  it('evicts the least recently used once it holds its byte budget', async () => {
    const { view } = await storeOf(3);
    const cache = new ConversationJsonCache(2 * 1000);
    const v = await view();
    const big = 'x'.repeat(1000);

    for (const id of ['c-0', 'c-1']) await read(cache, v, id, big);
    expect(await read(cache, v, 'c-0', big)).toBe('hit'); // c-0 is now the most recently used
    await read(cache, v, 'c-2', big); // full: remembered, not cached
    expect(await read(cache, v, 'c-2', big)).toBe('miss'); // read again soon: cached, and c-1 goes
    expect(await cache.get(v, 'c-1', 'f')).toBeUndefined();
    expect(textOf(await cache.get(v, 'c-0', 'f'))).toBe(big);
    expect(textOf(await cache.get(v, 'c-2', 'f'))).toBe(big);
  });

  it('keeps a conversation read often while many others come and go, and lets the others go oldest first', async () => {
    const { ids, view } = await storeOf(1001);
    // Room for 100 conversations.
    const cache = new ConversationJsonCache(100 * 1000);
    const v = await view();
    const json = 'x'.repeat(1000);
    const [hot, ...others] = ids;
    expect(await read(cache, v, hot!, json)).toBe('miss');
    // 1,000 others, each read three times in a row (once full: remembered, admitted, hit), and the
    // hot one after every fifth.
    for (let i = 0; i < others.length; i++) {
      expect((await inTurn(cache, v, [others[i]!, others[i]!, others[i]!], json)).at(-1)).toBe('hit');
      if (i % 5 === 4) expect(await read(cache, v, hot!, json)).toBe('hit');
    }
    // The others that stayed are the newest: the cache is full, and the oldest went first.
    expect(textOf(await cache.get(v, others.at(-1)!, 'f'))).toBe(json);
    expect(await cache.get(v, others[0]!, 'f')).toBeUndefined();
    expect(await cache.get(v, others.at(-120)!, 'f')).toBeUndefined();
  });

  it('counts the version stamps an entry keeps against its budget, not only its text', async () => {
    const repository = createMemoryRepository();
    const long = { ...conversationRecord('c-long'), messages: Array.from({ length: 1000 }, (_, i) => `m-${i}`) };
    await repository.transact((tx) => {
      tx.put('conversations', long);
      for (const id of long.messages) tx.put('messages', messageRecord(id, 'c-long'));
    });
    const v = await repository.read((view) => view);
    const stamps = (await readStamps(v, 'c-long'))!;
    // 100 characters of text, 1,000 stamps of 8 bytes: more than a budget of 4,000 bytes.
    const small = new ConversationJsonCache(4_000);
    small.set(stamps, 'f', { json: 'x'.repeat(100) }, small.begin('c-long'));
    expect(await small.get(v, 'c-long', 'f')).toBeUndefined();
    const roomy = new ConversationJsonCache(9_000);
    roomy.set(stamps, 'f', { json: 'x'.repeat(100) }, roomy.begin('c-long'));
    expect(textOf(await roomy.get(v, 'c-long', 'f'))).toBe('x'.repeat(100));
  });

  it('hands back the UTF-8 bytes it keeps, to be sent as they are, and nothing when it keeps nothing', async () => {
    const { view } = await storeOf(1);
    const v = await view();
    const stamps = (await readStamps(v, 'c-0'))!;
    // Five characters of two bytes each: 10 bytes, the whole budget; six are 12, over it, though
    // their 6 characters would fit.
    const cache = new ConversationJsonCache(10);
    const kept = cache.set(stamps, 'f', { json: 'é'.repeat(5) }, cache.begin('c-0'));
    expect(Buffer.from(kept!).toString()).toBe('é'.repeat(5));
    expect(textOf(await cache.get(v, 'c-0', 'f'))).toBe('é'.repeat(5));
    expect(cache.set(stamps, 'f', { json: 'é'.repeat(6) }, cache.begin('c-0'))).toBeUndefined();
    expect(textOf(await cache.get(v, 'c-0', 'f'))).toBe('é'.repeat(5));
  });

  it('keeps nothing with a budget of 0, or larger than its budget', async () => {
    const { view } = await storeOf(1);
    const v = await view();
    for (const [budget, json] of [
      [0, '{}'],
      [10, 'x'.repeat(11)],
    ] as const) {
      const cache = new ConversationJsonCache(budget);
      for (let i = 0; i < 3; i++) expect(await read(cache, v, 'c-0', json)).toBe('miss');
    }
  });
});

describe('ConversationJsonCache following a local change feed', () => {
  /** A memory store (its feed is local) with conversation c-0 of messages m-0, m-1 and annotation a-0, and c-1 of none. */
  async function followed(feed?: ChangeEmitter) {
    const repository = createMemoryRepository();
    await repository.transact((tx) => {
      tx.put('conversations', { ...conversationRecord('c-0'), messages: ['m-0', 'm-1'], annotations: ['a-0'] });
      tx.put('conversations', conversationRecord('c-1'));
      for (const id of ['m-0', 'm-1']) tx.put('messages', messageRecord(id, 'c-0'));
      tx.put('annotations', { ...annotationRecord('a-0'), conversation: 'c-0' });
    });
    const cache = new ConversationJsonCache(1024 * 1024, feed ?? repository.changes);
    const view = await repository.read((v) => v);
    const keep = async (id: string) => cache.set((await readStamps(view, id))!, 'f', { json: `{"id":"${id}"}` }, cache.begin(id));
    const cached = (id: string) => cache.peek(id, 'f') !== undefined;
    return { repository, cache, keep, cached };
  }

  it('answers a hit without reading the store, until a write to the conversation, a message or an annotation of it is delivered', async () => {
    const { repository, cache, keep, cached } = await followed();
    expect(cache.local).toBe(true);
    const writes: ((tx: Transaction) => void)[] = [
      (tx) => tx.put('conversations', conversationRecord('c-0', 'renamed')),
      (tx) => tx.put('messages', { ...messageRecord('m-1', 'c-0'), updated: { value: '2026-02-01T00:00:00.000Z' } }),
      (tx) => tx.put('annotations', { ...annotationRecord('a-0'), conversation: 'c-0', text: 'changed' }),
    ];
    for (const write of writes) {
      await keep('c-0');
      await keep('c-1');
      const { bytes } = cache.peek('c-0', 'f')!;
      expect(Buffer.from(bytes).toString()).toBe('{"id":"c-0"}');
      // Its own memory: a small answer keeps no larger shared buffer alive.
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
      await repository.transact(write);
      expect(cached('c-0')).toBe(false);
      expect(cached('c-1')).toBe(true); // another conversation's entry stays
    }
  });

  it('drops the entries showing a message or annotation deleted without its conversation being written', async () => {
    const { repository, keep, cached } = await followed();
    for (const [collection, id] of [
      ['messages', 'm-0'],
      ['annotations', 'a-0'],
    ] as const) {
      await keep('c-0');
      await keep('c-1');
      await repository.transact((tx) => tx.delete(collection, id));
      expect(cached('c-0')).toBe(false);
      expect(cached('c-1')).toBe(true);
    }
  });

  it('keeps no answer rendered from records read before a write to them was delivered', async () => {
    const { repository, cache, cached } = await followed();
    const view = await repository.read((v) => v);
    const render = cache.begin('c-0');
    const stamps = (await readStamps(view, 'c-0'))!;
    await repository.transact((tx) =>
      tx.put('messages', { ...messageRecord('m-0', 'c-0'), updated: { value: '2026-02-01T00:00:00.000Z' } }),
    );
    cache.set(stamps, 'f', { json: '{"stale":true}' }, render);
    cache.end(render);
    expect(cached('c-0')).toBe(false);
    // A render of another conversation meanwhile is kept.
    const other = cache.begin('c-1');
    const otherStamps = (await readStamps(view, 'c-1'))!;
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c-0', 'again')));
    cache.set(otherStamps, 'f', { json: '{}' }, other);
    expect(cached('c-1')).toBe(true);
  });

  it('empties itself when the store undoes writes that reads saw, and follows nothing once closed', async () => {
    const feed = new ChangeEmitter(undefined, { local: true });
    const { cache, keep, cached } = await followed(feed);
    await keep('c-0');
    await keep('c-1');
    feed.undone();
    expect(cached('c-0')).toBe(false);
    expect(cached('c-1')).toBe(false);
    await keep('c-0');
    cache.close();
    feed.emit([{ collection: 'conversations', id: 'c-0', record: null }]);
    expect(cached('c-0')).toBe(true);
  });

  it('checks stamps at each hit when the feed is not local', async () => {
    const repository = createMemoryRepository();
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c-0')));
    const shared = new ChangeEmitter(); // as a store shared by processes has: not local
    const cache = new ConversationJsonCache(1024 * 1024, shared);
    expect(cache.local).toBe(false);
    const view = await repository.read((v) => v);
    cache.set((await readStamps(view, 'c-0'))!, 'f', { json: '{}' }, cache.begin('c-0'));
    expect(cache.peek('c-0', 'f')).toBeUndefined();
    expect(await cache.get(view, 'c-0', 'f')).toBeDefined();
    // A write the feed has not delivered (another process's): the stamps tell.
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c-0', 'renamed elsewhere')));
    expect(await cache.get(view, 'c-0', 'f')).toBeUndefined();
  });
});
