import { describe, expect, it } from 'vitest';
import { createMemoryRepository, type ReadView } from '../../src/index.js';
import { ConversationJsonCache } from '../../src/render/json-cache.js';
import { conversationRecord } from '../helpers/records.js';

async function storeOf(count: number) {
  const repository = createMemoryRepository();
  const ids = Array.from({ length: count }, (_, i) => `c-${i}`);
  await repository.transact((tx) => ids.forEach((id) => tx.put('conversations', conversationRecord(id))));
  const view = () => repository.read((v) => v);
  return { repository, ids, view };
}

/** What a read through the cache does: answer the cached JSON, or render (here: a stand-in) and offer it. */
function read(cache: ConversationJsonCache, view: ReadView, id: string, json = `{"id":"${id}"}`): 'hit' | 'miss' {
  if (cache.get(view, id, false) !== undefined) return 'hit';
  cache.set(view, view.get('conversations', id)!, false, json);
  return 'miss';
}

describe('ConversationJsonCache', () => {
  it('answers a conversation from the cache until it changes', async () => {
    const { repository, view } = await storeOf(1);
    const cache = new ConversationJsonCache(1024 * 1024);

    expect(read(cache, await view(), 'c-0')).toBe('miss');
    expect(read(cache, await view(), 'c-0')).toBe('hit');
    expect(cache.get(await view(), 'c-0', true)).toBeUndefined(); // the other rendering is its own entry

    await repository.transact((tx) => tx.put('conversations', conversationRecord('c-0', 'renamed')));
    expect(read(cache, await view(), 'c-0')).toBe('miss');
    expect(read(cache, await view(), 'c-0')).toBe('hit');
  });

  it('keeps every conversation while they fit, whatever their size', async () => {
    const { ids, view } = await storeOf(500);
    const cache = new ConversationJsonCache(500 * 400);
    const v = await view();
    const outcomes = () => ids.map((id) => read(cache, v, id, 'x'.repeat(400)));

    expect(outcomes()).not.toContain('hit');
    expect(outcomes()).not.toContain('miss');
  });

  it('once full, keeps its entries through reads spread over more conversations than it holds', async () => {
    const { ids, view } = await storeOf(40);
    // Room for 8 conversations.
    const cache = new ConversationJsonCache(8 * 4000);
    const v = await view();
    const outcomes = (order: string[]) => order.map((id) => read(cache, v, id, 'x'.repeat(4000)));
    const [hot, filler, others] = [ids.slice(0, 4), ids.slice(4, 8), ids.slice(8)];

    expect(outcomes([...hot, ...filler])).not.toContain('hit'); // now full
    expect(outcomes(hot)).toEqual(hot.map(() => 'hit'));
    // A scan over the 32 others, twice: each comes back after 31 others, later than an entry of a
    // cache of 8 could be hit, so none displaces anything...
    expect(outcomes([...others, ...others])).not.toContain('hit');
    expect(outcomes([...hot, ...filler])).not.toContain('miss');
    // ...while one read again soon does.
    expect(outcomes([others[0]!, others[1]!, others[0]!, others[0]!])).toEqual(['miss', 'miss', 'miss', 'hit']);
  });

  it('evicts the least recently used once it holds its byte budget', async () => {
    const { view } = await storeOf(3);
    const cache = new ConversationJsonCache(2 * 1000);
    const v = await view();
    const big = 'x'.repeat(1000);

    for (const id of ['c-0', 'c-1']) read(cache, v, id, big);
    expect(read(cache, v, 'c-0', big)).toBe('hit'); // c-0 is now the most recently used
    read(cache, v, 'c-2', big); // full: remembered, not cached
    expect(read(cache, v, 'c-2', big)).toBe('miss'); // read again soon: cached, and c-1 goes
    expect(cache.get(v, 'c-1', false)).toBeUndefined();
    expect(cache.get(v, 'c-0', false)).toBe(big);
    expect(cache.get(v, 'c-2', false)).toBe(big);
  });

  it('keeps nothing with a budget of 0, or larger than its budget', async () => {
    const { view } = await storeOf(1);
    const v = await view();
    for (const [budget, json] of [
      [0, '{}'],
      [10, 'x'.repeat(11)],
    ] as const) {
      const cache = new ConversationJsonCache(budget);
      for (let i = 0; i < 3; i++) expect(read(cache, v, 'c-0', json)).toBe('miss');
    }
  });
});
