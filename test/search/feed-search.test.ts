/**
 * The search index the service keeps for a store without its own follows the store's change
 * feed: writes made by someone else (another process sharing the store) reach it, and a search
 * waits for the feed to catch up, so it never answers from before a write that was acknowledged.
 * The shared store here is a memory store; each "instance" sees it through a feed that, like a
 * database's, delivers the others' writes only when asked (`caughtUp`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChangeBatch,
  createMemoryRepository,
  createService,
  type Embedder,
  type Repository,
  type Service,
  type TextQuery,
} from '../../src/index.js';
import { withSearch } from '../../src/search/indexed-repository.js';
import { queryWords } from '../../src/search/tokens.js';
import { ChangeEmitter } from '../../src/stores/change-emitter.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { conversationWith, said } from '../helpers/service.js';

/**
 * One instance's view of `shared`: no search of its own, and a change feed that holds every
 * batch committed to `shared` (by anyone) until a reader asks for them with `caughtUp`.
 */
function instanceOf(shared: Repository) {
  const waiting: ChangeBatch[] = [];
  shared.changes!.subscribe((batch) => waiting.push(batch));
  const delivered = new ChangeEmitter();
  const repository: Repository = {
    read: (fn) => shared.read(fn),
    transact: (fn) => shared.transact(fn),
    close: async () => {},
    changes: {
      subscribe: (listener) => delivered.subscribe(listener),
      async caughtUp() {
        // As a database would: a round trip, then what was committed before it.
        await new Promise((resolve) => setTimeout(resolve, 1));
        for (const batch of waiting.splice(0)) delivered.emit(batch.changes, batch.seq);
        return delivered.seq;
      },
    },
  };
  return { repository, waiting };
}

const query = (text: string): TextQuery => ({ text, words: queryWords(text), prefix: false, limit: 10 });

/** Someone else writes a conversation with one message saying `text`. */
async function writtenElsewhere(shared: Repository, id: string, text: string): Promise<void> {
  await shared.transact((tx) => {
    tx.put('conversations', { ...conversationRecord(id), messages: [`${id}-m`] });
    tx.put('messages', { ...messageRecord(`${id}-m`, id), fragment: { string: { raw: text } } });
  });
}

describe('the index withSearch keeps for a store without its own', () => {
  it('finds what someone else wrote once the feed has caught up, and forgets what they deleted', async () => {
    const shared = createMemoryRepository();
    await writtenElsewhere(shared, 'before', 'elixir genserver timeout');
    const { repository, waiting } = instanceOf(shared);
    const searchable = withSearch(repository);
    // Built at the first search, from the records.
    expect((await searchable.search.searchMessages(query('genserver'))).map((hit) => hit.id)).toEqual(['before-m']);

    await writtenElsewhere(shared, 'after', 'genserver supervisor restart');
    // Not through this instance: the batch waits in the feed until a reader asks for it.
    expect(waiting).toHaveLength(1);
    expect((await searchable.search.searchMessages(query('supervisor'))).map((hit) => hit.id)).toEqual(['after-m']);
    expect(waiting).toHaveLength(0);

    await shared.transact((tx) => {
      tx.delete('messages', 'before-m');
      tx.put('conversations', conversationRecord('before'));
    });
    expect((await searchable.search.searchMessages(query('genserver'))).map((hit) => hit.id)).toEqual(['after-m']);
  });

  it('hands each batch on to what follows its feed after the index has it, with the store’s numbers', async () => {
    const shared = createMemoryRepository();
    const { repository } = instanceOf(shared);
    const searchable = withSearch(repository);
    await searchable.search.searchMessages(query('anything'));
    const seen: { seq: number; found: string[] }[] = [];
    searchable.changes.subscribe((batch) => {
      // The index took the batch before this listener was called: a search started now finds it.
      void searchable.search.searchMessages(query('kafka')).then((hits) => seen.push({ seq: batch.seq, found: hits.map((hit) => hit.id) }));
    });
    await writtenElsewhere(shared, 'c1', 'kafka consumer lag');
    expect(await searchable.changes.caughtUp()).toBe(await shared.changes!.caughtUp());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([{ seq: await shared.changes!.caughtUp(), found: ['c1-m'] }]);
  });
});

describe('two services sharing one store through its feed', () => {
  const services: Service[] = [];
  afterEach(async () => {
    for (const service of services.splice(0)) await service.close();
  });

  /** Vectors of meaning where "car" and "automobile" are one dimension. */
  const embedder: Embedder = {
    model: 'concepts',
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(8);
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? [])
          vector[word === 'car' || word === 'automobile' ? 0 : 1 + (word.length % 7)]! += 1;
        return vector;
      });
    },
  };

  it('each finds, by words and by meaning, what the other wrote', async () => {
    const shared = createMemoryRepository();
    const [one, two] = await Promise.all(
      [0, 1].map(() => createService({ repository: instanceOf(shared).repository, summarizer: createFakeSummarizer(), embedder })),
    );
    services.push(one!, two!);
    const written = await conversationWith(two!, said('USER', 'My car will not start in the cold'));
    const id = written.messages.iterable[0]!.id;
    const byWords = await one!.searchMessages({ engines: { iterable: [{ query: 'cold start' }] } });
    expect(byWords.iterable.map((hit) => hit.identifier)).toEqual([id]);
    // The vectors are made in the background, from the batches the feed handed on.
    const deadline = Date.now() + 5_000;
    let byMeaning: string[] = [];
    while (Date.now() < deadline) {
      const answer = await one!.searchMessages({ engines: { iterable: [{ query: 'automobile', embeddings: { type: 'JINA' } }] } });
      byMeaning = answer.iterable.map((hit) => hit.identifier);
      if (byMeaning.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(byMeaning).toEqual([id]);
  });
});
