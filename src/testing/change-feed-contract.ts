import { expect } from 'vitest';
import type { ChangeBatch, ChangeFeed, RecordChange, Repository } from '../ports.js';
import { conversationRecord } from './records.js';

/** One contract test of the feed: it gets the repository and its feed (the suite checked it has one). */
export type FeedTest = (title: string, test: (repository: Repository, feed: ChangeFeed) => Promise<void>) => void;

/**
 * Registers the change feed's part of the Repository contract (see `ChangeFeed` in ports.ts) with
 * `feedContract`, which opens a fresh repository for each test.
 */
export function describeChangeFeedContract(feedContract: FeedTest, concurrentTransactions: number): void {
  feedContract(
    'delivers one batch per committed transaction, numbered increasingly, each record once as it was left',
    async (repository, feed) => {
      const batches = collect(feed);
      const before = await feed.caughtUp();
      await repository.transact((tx) => {
        tx.put('conversations', conversationRecord('a', 'first'));
        tx.put('conversations', conversationRecord('b'));
      });
      await repository.transact((tx) => {
        tx.put('conversations', conversationRecord('a', 'second'));
        tx.put('conversations', conversationRecord('a', 'third'));
        tx.delete('conversations', 'b');
      });
      const last = await feed.caughtUp();
      expect(batches.map((batch) => states(batch.changes))).toEqual([
        { 'conversations/a': 'first', 'conversations/b': 'Conversation b' },
        { 'conversations/a': 'third', 'conversations/b': null },
      ]);
      expect(batches[0]!.seq).toBeGreaterThan(before);
      expect(batches[1]!.seq).toBeGreaterThan(batches[0]!.seq);
      expect(last).toBe(batches[1]!.seq);
    },
  );

  feedContract('delivers a batch after its commit: a read started by the listener sees its writes', async (repository, feed) => {
    const reads: Promise<string | undefined>[] = [];
    feed.subscribe((batch) => {
      const id = batch.changes[0]!.id;
      reads.push(repository.read(async (view) => (await view.get('conversations', id))?.name));
    });
    for (const id of ['x', 'y', 'z']) await repository.transact((tx) => tx.put('conversations', conversationRecord(id, `named ${id}`)));
    await feed.caughtUp();
    expect(await Promise.all(reads)).toEqual(['named x', 'named y', 'named z']);
  });

  feedContract('delivers nothing for a failed transaction, nor for one that wrote nothing', async (repository, feed) => {
    await repository.transact((tx) => tx.put('conversations', conversationRecord('kept')));
    const before = await feed.caughtUp();
    const batches = collect(feed);
    await expect(
      repository.transact(async (tx) => {
        tx.put('conversations', conversationRecord('lost'));
        tx.delete('conversations', 'kept');
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    await repository.transact(async (tx) => tx.get('conversations', 'kept'));
    expect(await feed.caughtUp()).toBe(before);
    expect(batches).toEqual([]);
  });

  feedContract(
    `delivers ${concurrentTransactions} concurrent transactions in commit order: the last state delivered of each record is the stored one`,
    async (repository, feed) => {
      const batches = collect(feed);
      await repository.transact((tx) => tx.put('conversations', counter(0)));
      await Promise.all(
        Array.from({ length: concurrentTransactions }, (_, i) =>
          repository.transact(async (tx) => {
            const current = await tx.get('conversations', 'counter');
            await new Promise<void>((resolve) => setTimeout(resolve, 0));
            tx.put('conversations', counter((current?.score?.manual ?? Number.NaN) + 1));
            tx.put('conversations', conversationRecord(`own-${i}`));
          }),
        ),
      );
      await feed.caughtUp();
      expect(batches).toHaveLength(concurrentTransactions + 1);
      const seqs = batches.map((batch) => batch.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      // Each increment's batch holds the counter as that transaction (or a later one) left it.
      const counted = batches.map((batch) => (batch.changes.find((change) => change.id === 'counter')!.record as Counter).score.manual);
      expect(counted).toEqual([...counted].sort((a, b) => a - b));
      expect(counted.at(-1)).toBe(concurrentTransactions);
      const own = batches.flatMap((batch) => batch.changes.filter((change) => change.id.startsWith('own-')).map((change) => change.id));
      expect(own.sort()).toEqual(Array.from({ length: concurrentTransactions }, (_, i) => `own-${i}`).sort());
    },
  );

  feedContract(
    'a local feed delivers each batch before its transact resolves, concurrent ones included (any other, once caught up)',
    async (repository, feed) => {
      const delivered = new Set<string>();
      feed.subscribe((batch) => {
        for (const change of batch.changes) delivered.add(change.id);
      });
      const missing: string[] = [];
      await Promise.all(
        ['p', 'q', 'r'].map(async (id) => {
          await repository.transact((tx) => tx.put('conversations', conversationRecord(id)));
          // A cache in this process follows a local feed instead of reading the store: it must
          // know of the write by the time the write is acknowledged.
          if (feed.local && !delivered.has(id)) missing.push(id);
        }),
      );
      expect(missing).toEqual([]);
      await feed.caughtUp();
      expect([...delivered].sort()).toEqual(['p', 'q', 'r']);
      if (feed.local) {
        let undone = 0;
        const stop = feed.local.onUndone(() => undone++);
        expect(typeof stop).toBe('function');
        stop();
        expect(undone).toBe(0);
      }
    },
  );

  feedContract('stops calling a listener once it unsubscribed; the others still get every batch', async (repository, feed) => {
    const stopped: ChangeBatch[] = [];
    const unsubscribe = feed.subscribe((batch) => stopped.push(batch));
    const kept = collect(feed);
    await repository.transact((tx) => tx.put('conversations', conversationRecord('one')));
    await feed.caughtUp();
    unsubscribe();
    await repository.transact((tx) => tx.put('conversations', conversationRecord('two')));
    await feed.caughtUp();
    expect(stopped.map((batch) => batch.changes.map((change) => change.id))).toEqual([['one']]);
    expect(kept.map((batch) => batch.changes.map((change) => change.id))).toEqual([['one'], ['two']]);
  });
}

/** The batches `feed` delivers from now on, as they come (until the repository closes). */
function collect(feed: ChangeFeed): ChangeBatch[] {
  const batches: ChangeBatch[] = [];
  feed.subscribe((batch) => batches.push(batch));
  return batches;
}

/** Each change as `collection/id` → the record's name, or null once deleted. */
function states(changes: readonly RecordChange[]): Record<string, string | null> {
  return Object.fromEntries(
    changes.map((change) => [`${change.collection}/${change.id}`, change.record && (change.record as { name: string }).name]),
  );
}

type Counter = ReturnType<typeof counter>;

const counter = (value: number) => ({ ...conversationRecord('counter'), score: { manual: value, automatic: 0 } });
