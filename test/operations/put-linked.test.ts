import { describe, expect, it } from 'vitest';
import { createMemoryRepository } from '../../src/index.js';
import { putLinked } from '../../src/put-linked.js';
import type { CollectionName, Collections } from '../../src/records.js';
import { conversationRecord, messageRecord, sampleRecord } from '../../src/testing/records.js';

const LATER = { value: '2026-02-02T00:00:00.000Z' };

async function storeWith(records: [CollectionName, object][]) {
  const repository = createMemoryRepository();
  await repository.transact((tx) => {
    for (const [collection, record] of records) tx.put(collection, record as never);
  });
  return repository;
}

const read = <C extends CollectionName>(repository: Awaited<ReturnType<typeof storeWith>>, collection: C, id: string) =>
  repository.read((view) => view.get(collection, id)) as Promise<Collections[C] | undefined>;

describe('putLinked', () => {
  it('makes a stored record name an arriving one back, and drops links to records that are gone', async () => {
    const repository = await storeWith([['anchors', sampleRecord('anchors', 'kept')]]);
    const conversation = { ...conversationRecord('c1'), messages: ['m1'], anchors: ['kept', 'gone'], websites: ['gone-too'] };
    await repository.transact((tx) =>
      putLinked(
        tx,
        new Map<CollectionName, { id: string }[]>([
          ['conversations', [conversation]],
          ['messages', [messageRecord('m1', 'c1')]],
        ]),
        LATER,
      ),
    );
    const stored = await read(repository, 'conversations', 'c1');
    expect(stored?.anchors).toEqual(['kept']);
    expect(stored?.websites).toEqual([]);
    expect(stored?.messages).toEqual(['m1']);
    // The arriving record keeps its own stamps; the stored one it now names gets `updated`.
    expect(stored?.updated).toEqual(conversation.updated);
    const anchor = await read(repository, 'anchors', 'kept');
    expect(anchor?.conversations).toEqual(['c1']);
    expect(anchor?.updated).toEqual(LATER);
  });

  it('completes a link only one arriving record states, and keeps a stored one-id field that names another record', async () => {
    const repository = await storeWith([['conversations', conversationRecord('other')]]);
    // The message names its conversation, whose list lacks it; the annotation names a conversation that is not stored.
    const annotation = { ...sampleRecord('annotations', 'a1'), conversation: 'nowhere', messages: ['m1', 'absent'] };
    await repository.transact((tx) =>
      putLinked(
        tx,
        new Map<CollectionName, { id: string }[]>([
          ['conversations', [conversationRecord('c1')]],
          ['messages', [messageRecord('m1', 'c1')]],
          ['annotations', [annotation]],
        ]),
        LATER,
      ),
    );
    expect((await read(repository, 'conversations', 'c1'))?.messages).toEqual(['m1']);
    const stored = await read(repository, 'annotations', 'a1');
    expect(stored?.conversation).toBeUndefined();
    expect(stored?.messages).toEqual(['m1']);
    expect((await read(repository, 'conversations', 'other'))?.annotations).toEqual([]);
  });
});
