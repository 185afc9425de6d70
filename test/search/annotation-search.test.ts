/**
 * `searchAnnotations` on each kind of index: the store's own (memory), the one the service builds
 * for a store without one (fed by its transactions), and a store's search without an annotation
 * search of its own, which answers through its conversation search (each matching conversation's
 * best annotations; an annotation of no conversation is not found there).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryRepository, createService, type Repository, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationWith, said } from '../helpers/service.js';

const searchFor = (query: string, exact = false) => ({
  engines: { iterable: [{ query, ...(exact ? { full_text: { exact: true } } : {}) }] },
});

const STORES: readonly [string, () => Repository][] = [
  ['its own index', () => createMemoryRepository()],
  [
    'the index the service builds',
    () => {
      const inner = createMemoryRepository();
      return { read: (fn) => inner.read(fn), transact: (fn) => inner.transact(fn), close: () => inner.close() };
    },
  ],
];

async function annotated(service: Service) {
  const conversation = await conversationWith(service, said('USER', 'notes on marine mammals'));
  const best = await service.createAnnotation({ type: 'SUMMARY', text: 'The walrus eats clams', conversation: conversation.id });
  const other = await service.createAnnotation({ type: 'COMMENT', text: 'walrus walrus tusks', conversation: conversation.id });
  const loose = await service.createAnnotation({ type: 'COMMENT', text: 'A walrus of no conversation' });
  const unrelated = await service.createAnnotation({ type: 'COMMENT', text: 'Otters hold hands', conversation: conversation.id });
  return { best, other, loose, unrelated };
}

const ids = async (service: Service, input: ReturnType<typeof searchFor>, options?: { limit?: number; offset?: number }) =>
  (await service.searchAnnotations(input, options)).iterable.map((hit) => hit.identifier);

describe.each(STORES)('searchAnnotations on %s', (_name, open) => {
  it('finds annotations by their text alone, best first, paged; `exact` keeps the verbatim ones; edits are searched at once', async () => {
    const service = await createService({ repository: open(), summarizer: createFakeSummarizer() });
    const { best, other, loose, unrelated } = await annotated(service);
    const found = await ids(service, searchFor('walrus'));
    expect(new Set(found)).toEqual(new Set([best.id, other.id, loose.id]));
    // The one that says it twice, in the fewest words, ranks first.
    expect(found[0]).toBe(other.id);
    expect(await ids(service, searchFor('walrus'), { limit: 1, offset: 1 })).toEqual([found[1]]);
    expect((await service.searchAnnotations(searchFor('walrus'), { limit: 1 })).next).toBe(1);
    expect(await ids(service, searchFor('walrus eats', true))).toEqual([best.id]);
    // A message's words are not an annotation's.
    expect(await ids(service, searchFor('mammals'))).toEqual([]);
    const hit = (await service.searchAnnotations(searchFor('otters'))).iterable[0]!;
    expect(hit).toMatchObject({ identifier: unrelated.id, exact: true, annotation: { text: 'Otters hold hands' } });
    expect(hit.snippet).toContain('Otters');

    await service.updateAnnotation({ id: unrelated.id, text: 'Sea otters float' });
    expect(await ids(service, searchFor('float'))).toEqual([unrelated.id]);
    expect(await ids(service, searchFor('hands'))).toEqual([]);
    await service.deleteAnnotation(other.id);
    expect(new Set(await ids(service, searchFor('walrus')))).toEqual(new Set([best.id, loose.id]));
    await service.close();
  });
});

describe('searchAnnotations on a store whose search has no annotation search', () => {
  it('answers the annotations of the conversations its conversation search finds', async () => {
    const inner = createMemoryRepository();
    const own = inner.search!;
    const repository: Repository = {
      read: (fn) => inner.read(fn),
      transact: (fn) => inner.transact(fn),
      close: () => inner.close(),
      // Its messages' and conversations' searches, and no other.
      search: { searchMessages: (q) => own.searchMessages(q), searchConversations: (q) => own.searchConversations(q) },
      changes: inner.changes!,
    };
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const { best, other } = await annotated(service);
    expect(new Set(await ids(service, searchFor('walrus')))).toEqual(new Set([best.id, other.id]));
    await service.close();
  });
});
