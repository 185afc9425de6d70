import { describe, expect, it } from 'vitest';
import { createMemoryRepository, createService, type ReadView, type Repository } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationWith, said } from '../helpers/service.js';

/** A memory store without its own index (nor a change feed), whose `list` fails while `failing` is set. */
function storeOfYourOwn() {
  const inner = createMemoryRepository();
  const state = { failing: false };
  const failing = <V extends ReadView>(view: V): V => ({
    ...view,
    list: async (collection, page) => {
      if (state.failing) throw new Error('disk went away');
      return view.list(collection, page);
    },
  });
  const repository: Repository = {
    read: (fn) => inner.read((view) => fn(failing(view))),
    transact: (fn) => inner.transact((tx) => fn(failing(tx))),
    close: () => inner.close(),
  };
  return { repository, state };
}

describe('a store without its own index', () => {
  it('is indexed at the first search; a failed build fails that search only, and the next builds it again', async () => {
    const { repository, state } = storeOfYourOwn();
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const first = await conversationWith(service, said('USER', 'elixir genserver timeout'));
    const query = { engines: { iterable: [{ query: 'genserver' }] } };

    state.failing = true;
    await expect(service.searchMessages(query)).rejects.toThrow('disk went away');
    state.failing = false;
    // Writes after the failed build are stored and answered as usual.
    const second = await conversationWith(service, said('USER', 'elixir genserver call'));
    const found = (await service.searchMessages(query)).iterable.map((hit) => hit.identifier);
    expect(new Set(found)).toEqual(new Set([first.messages.iterable[0]!.id, second.messages.iterable[0]!.id]));
    // And from then on each write is indexed as it is committed.
    const third = await conversationWith(service, said('USER', 'genserver supervisor'));
    expect(
      (await service.searchMessages({ engines: { iterable: [{ query: 'supervisor' }] } })).iterable.map((hit) => hit.identifier),
    ).toEqual([third.messages.iterable[0]!.id]);
    await service.close();
  });
});
