import { describe, expect, it } from 'vitest';
import type { PageRequest, ReadView, Repository, Transaction } from '../ports.js';
import { COLLECTION_NAMES, type ConversationRecord } from '../records.js';
import { describeChangeFeedContract, type FeedTest } from './change-feed-contract.js';
import { conversationRecord, sampleRecord } from './records.js';

/** How {@link describeRepositoryContract} runs. */
export interface RepositoryContractOptions {
  /** Milliseconds each test may take, for a store that is slow to open or far away. Default: vitest's `testTimeout`. */
  readonly timeout?: number;
  /**
   * How many transactions the no-lost-update test starts at once, each reading, then rewriting,
   * the same record. Default 20.
   */
  readonly concurrentTransactions?: number;
  /**
   * Whether the store offers a change feed (`Repository.changes`), which the suite then holds to
   * its contract. Default true: a store that other processes write to must have one. Pass false
   * for a store that only this service writes to and that has none: the feed's tests are then
   * listed as skipped, saying so.
   */
  readonly changeFeed?: boolean;
}

/**
 * Registers, with vitest's `describe` and `it`, the behaviour every {@link Repository} must have:
 * the contract that the memory and JSON file stores pass, and that the service relies on. Run it
 * against a store of your own (a database, say) to know the service will work on it:
 *
 * ```ts
 * // test/my-repository.test.ts, run by vitest (an optional peer dependency: install it)
 * import { describeRepositoryContract } from 'conversation-model-service/testing';
 * import { createMyRepository } from '../src/my-repository.js';
 *
 * // Each test opens a fresh, empty store with this function; the suite closes it.
 * describeRepositoryContract('my store', () => createMyRepository({ database: freshTestDatabase() }), { timeout: 30_000 });
 * ```
 *
 * `open` must answer a fresh, empty repository each time it is called (every test opens its own);
 * the suite closes what it opens. What the suite checks, beyond the port's documentation:
 * - `put` refuses a value JSON cannot hold (a BigInt, a Date, a function, NaN, a Map, a cycle) with
 *   a `ServiceError` of code `INVALID_INPUT` (import it from `conversation-model-service`), at
 *   `put` or at commit, and the transaction then stores nothing; fields set to `undefined` are
 *   left out, as `JSON.stringify` leaves them out.
 * - A record is copied when it is put: the caller changing the object afterwards, even before
 *   the transaction ends, changes nothing stored. Records answered are deep-frozen.
 * - Ids are opaque strings: `__proto__`, `constructor` or `10` are ids like any other, and do not
 *   change the insertion order.
 * - `list` answers pages in insertion order; a record put again keeps its place, a new one goes
 *   last. A page that ends with the collection's last record has no `next`. A cursor stays valid
 *   when the records it came from are deleted: the next page starts after where it was.
 * - `versions` are numbers that stay the same until the record is written; a record written in a
 *   transaction has, inside it, a version other than its committed one.
 * - Transactions that read, await, then write the same record lose no update, even twenty of
 *   them started at once.
 * - The change feed (`Repository.changes`, unless `changeFeed: false`): one batch per committed
 *   transaction that wrote something, numbered increasingly, each record once as the transaction
 *   left it (or later), delivered after the commit (a read the listener starts sees it); nothing
 *   for a failed transaction; `caughtUp` resolves once every batch committed before it is
 *   delivered, with the last one's number; a listener unsubscribed is called no more.
 * Closing and reopening (durability) is not part of the contract: each store tests that itself.
 */
export function describeRepositoryContract(name: string, open: () => Promise<Repository>, options: RepositoryContractOptions = {}): void {
  const concurrentTransactions = options.concurrentTransactions ?? 20;

  const withRepository = async (test: (repository: Repository) => Promise<void>) => {
    const repository = await open();
    try {
      await test(repository);
    } finally {
      await repository.close();
    }
  };
  /** One contract test: it opens a fresh repository and closes it after. */
  const contract = (title: string, test: (repository: Repository) => Promise<void>) =>
    it(title, () => withRepository(test), options.timeout);
  /** One contract test of the change feed: the store must have one. */
  const feedContract: FeedTest = (title, test) => {
    // Listed as skipped, not left out: the run then says which feed tests a store without a feed
    // (`changeFeed: false`) did not run, and why (the title says it).
    if (options.changeFeed === false) return it.skip(`${title} (changeFeed: false: the store has no change feed)`);
    contract(title, async (repository) => {
      expect(
        repository.changes,
        'the store has a change feed (Repository.changes); pass { changeFeed: false } if it has none',
      ).toBeDefined();
      await test(repository, repository.changes!);
    });
  };

  describe(`Repository contract: ${name}`, () => {
    describe('reads and writes', () => {
      contract('starts empty', async (repository) => {
        expect(await repository.read((view) => view.get('conversations', 'missing'))).toBeUndefined();
        const page = await repository.read((view) => view.list('conversations'));
        expect(page.records).toEqual([]);
        expect(page.next).toBeUndefined();
        for (const collection of COLLECTION_NAMES) expect(await repository.read((view) => view.count(collection))).toBe(0);
      });

      contract('stores what a transaction puts and answers the transaction result', async (repository) => {
        const result = await repository.transact((tx) => {
          tx.put('conversations', conversationRecord('c1'));
          return 'done';
        });
        expect(result).toBe('done');
        expect(await repository.read((view) => view.get('conversations', 'c1'))).toEqual(conversationRecord('c1'));
      });

      contract('answers what the function given to read answers, sync or async, and passes on its failure', async (repository) => {
        await putConversations(repository, ['a', 'b']);
        expect(await repository.read(() => 42)).toBe(42);
        const names = await repository.read(async (view) => {
          const a = await view.get('conversations', 'a');
          const b = await view.get('conversations', 'b');
          return [a?.name, b?.name];
        });
        expect(names).toEqual(['Conversation a', 'Conversation b']);
        await expect(
          repository.read(async (view) => {
            await view.count('conversations');
            throw new Error('reader failed');
          }),
        ).rejects.toThrow('reader failed');
        await expect(
          repository.read(() => {
            throw new Error('sync reader failed');
          }),
        ).rejects.toThrow('sync reader failed');
      });

      contract('answers undefined for an absent record, in an empty collection or beside others', async (repository) => {
        expect(await repository.read((view) => view.get('conversations', 'absent'))).toBeUndefined();
        await putConversations(repository, ['present']);
        expect(await repository.read((view) => view.get('conversations', 'absent'))).toBeUndefined();
        await repository.transact((tx) => tx.delete('conversations', 'present'));
        expect(await repository.read((view) => view.get('conversations', 'present'))).toBeUndefined();
      });

      contract('answers getMany index for index: undefined where a record is missing, duplicates repeated', async (repository) => {
        await putConversations(repository, ['a', 'b', 'c']);
        const many = await repository.read((view) => view.getMany('conversations', ['b', 'missing', 'a', 'b', 'also-missing']));
        expect(many).toEqual([conversationRecord('b'), undefined, conversationRecord('a'), conversationRecord('b'), undefined]);
        expect(await repository.read((view) => view.getMany('conversations', []))).toEqual([]);
        expect(await repository.read((view) => view.getMany('conversations', ['x', 'y']))).toEqual([undefined, undefined]);
        expect(await repository.read((view) => view.getMany('anchors', ['a']))).toEqual([undefined]);
      });

      contract('keeps collections apart', async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('same-id')));
        expect(await repository.read((view) => view.get('anchors', 'same-id'))).toBeUndefined();
        expect(await repository.read((view) => view.count('anchors'))).toBe(0);
        expect((await repository.read((view) => view.list('anchors'))).records).toEqual([]);
        await repository.transact((tx) => tx.delete('anchors', 'same-id'));
        expect(await repository.read((view) => view.get('conversations', 'same-id'))).toEqual(conversationRecord('same-id'));
      });

      contract('stores records of every collection', async (repository) => {
        await repository.transact((tx) => {
          for (const collection of COLLECTION_NAMES) {
            tx.put(collection, sampleRecord(collection, 'shared-id'));
            tx.put(collection, sampleRecord(collection, `${collection}-only`));
          }
        });
        for (const collection of COLLECTION_NAMES) {
          const { page, count, record } = await repository.read(async (view) => ({
            page: await view.list(collection),
            count: await view.count(collection),
            record: await view.get(collection, 'shared-id'),
          }));
          expect(record, collection).toEqual(sampleRecord(collection, 'shared-id'));
          expect(ids(page.records), collection).toEqual(['shared-id', `${collection}-only`]);
          expect(count, collection).toBe(2);
        }
      });

      contract('treats ids as opaque strings: prototype names, integer-like ids and any characters', async (repository) => {
        const odd = ['10', 'b', '2', '__proto__', 'constructor', 'a/b\\c', 'with space', 'ünï 🙂', '0'];
        await putConversations(repository, odd);
        const seen = await repository.read(async (view) => ({
          listed: ids((await view.list('conversations')).records),
          many: ids(await view.getMany('conversations', odd)),
          count: await view.count('conversations'),
          inherited: await view.getMany('conversations', ['toString', 'hasOwnProperty', 'valueOf']),
          versions: await view.versions('conversations', odd),
        }));
        expect(seen.listed).toEqual(odd);
        expect(seen.many).toEqual(odd);
        expect(seen.count).toBe(odd.length);
        expect(seen.inherited).toEqual([undefined, undefined, undefined]);
        for (const version of seen.versions) expectVersion(version);
        await repository.transact((tx) => {
          tx.delete('conversations', '__proto__');
          tx.delete('conversations', '10');
        });
        expect(await listIds(repository)).toEqual(['b', '2', 'constructor', 'a/b\\c', 'with space', 'ünï 🙂', '0']);
        expect(await repository.read((view) => view.get('conversations', '__proto__'))).toBeUndefined();
      });

      contract('deletes records, and deleting an absent record is harmless', async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
        await repository.transact((tx) => {
          tx.delete('conversations', 'c1');
          tx.delete('conversations', 'never-existed');
        });
        expect((await repository.read((view) => view.list('conversations'))).records).toEqual([]);
        expect(await repository.read((view) => view.count('conversations'))).toBe(0);
      });

      contract(
        'stores only JSON values, refusing the rest with INVALID_INPUT and storing nothing of that transaction',
        async (repository) => {
          const cycle: Record<string, unknown> = {};
          cycle.self = cycle;
          for (const value of [10n, new Date(0), () => 1, Number.NaN, Infinity, cycle, new Map(), Symbol('s')]) {
            const attempt = repository.transact((tx) => {
              tx.put('conversations', conversationRecord('first'));
              tx.put('conversations', { ...conversationRecord('bad'), application: { value } });
            });
            await expect(attempt).rejects.toMatchObject({ code: 'INVALID_INPUT' });
          }
          // The same after an await: the whole transaction is refused.
          const afterAwait = repository.transact(async (tx) => {
            tx.put('conversations', conversationRecord('first'));
            await tx.get('conversations', 'first');
            tx.put('conversations', { ...conversationRecord('bad'), application: { value: 10n } });
          });
          await expect(afterAwait).rejects.toMatchObject({ code: 'INVALID_INPUT' });
          expect((await repository.read((view) => view.list('conversations'))).records).toEqual([]);
          expect(await repository.read((view) => view.count('conversations'))).toBe(0);
          // What JSON drops, the store drops: undefined fields are left out.
          await repository.transact((tx) => tx.put('conversations', { ...conversationRecord('c1'), name: undefined }));
          expect(Object.keys((await repository.read((view) => view.get('conversations', 'c1')))!)).not.toContain('name');
        },
      );
    });

    describe('list', () => {
      const SEVEN = ['g', 'c', 'e', 'a', 'f', 'b', 'd'];

      contract('lists records in insertion order, with replacements in place', async (repository) => {
        await repository.transact((tx) => {
          for (const id of ['b', 'a', 'c']) tx.put('conversations', conversationRecord(id));
        });
        await repository.transact((tx) => tx.put('conversations', conversationRecord('a', 'renamed')));
        const listed = await repository.read((view) => view.list('conversations'));
        expect(listed.records.map((record) => [record.id, record.name])).toEqual([
          ['b', 'Conversation b'],
          ['a', 'renamed'],
          ['c', 'Conversation c'],
        ]);
        expect(listed.next).toBeUndefined();
      });

      contract('answers at most `limit` records, and a next cursor only while records are left', async (repository) => {
        await putConversations(repository, SEVEN);
        const two = await repository.read((view) => view.list('conversations', { limit: 2 }));
        expect(ids(two.records)).toEqual(['g', 'c']);
        expect(typeof two.next).toBe('string');
        for (const limit of [7, 100]) {
          const all = await repository.read((view) => view.list('conversations', { limit }));
          expect(ids(all.records), `limit ${limit}`).toEqual(SEVEN);
          expect(all.next, `limit ${limit}`).toBeUndefined();
        }
        const unlimited = await repository.read((view) => view.list('conversations', {}));
        expect(ids(unlimited.records)).toEqual(SEVEN);
        expect(unlimited.next).toBeUndefined();
      });

      contract('skips `offset` records first, alone or with a limit', async (repository) => {
        await putConversations(repository, SEVEN);
        const rest = await repository.read((view) => view.list('conversations', { offset: 2 }));
        expect(ids(rest.records)).toEqual(['e', 'a', 'f', 'b', 'd']);
        expect(rest.next).toBeUndefined();
        const middle = await repository.read((view) => view.list('conversations', { offset: 1, limit: 2 }));
        expect(ids(middle.records)).toEqual(['c', 'e']);
        expect(typeof middle.next).toBe('string');
        // The next page starts right after the last record of this one.
        const after = await repository.read((view) => view.list('conversations', { after: middle.next!, limit: 2 }));
        expect(ids(after.records)).toEqual(['a', 'f']);
        const tail = await repository.read((view) => view.list('conversations', { offset: 5, limit: 2 }));
        expect(ids(tail.records)).toEqual(['b', 'd']);
        expect(tail.next).toBeUndefined();
        for (const offset of [7, 100]) {
          const beyond = await repository.read((view) => view.list('conversations', { offset }));
          expect(beyond.records, `offset ${offset}`).toEqual([]);
          expect(beyond.next, `offset ${offset}`).toBeUndefined();
        }
      });

      contract('pages through every record exactly once by following `next` until it is absent', async (repository) => {
        await putConversations(repository, SEVEN);
        for (const limit of [1, 2, 3, 6, 7, 8]) {
          const pages = await repository.read((view) => pageThrough(view, limit));
          expect(pages, `limit ${limit}`).toEqual(chunks(SEVEN, limit));
        }
        // `offset` skips from the cursor on.
        const skipped = await repository.read(async (view) => {
          const first = await view.list('conversations', { limit: 2 });
          const second = await view.list('conversations', { after: first.next!, offset: 1, limit: 2 });
          const third = await view.list('conversations', { after: second.next! });
          return [ids(first.records), ids(second.records), ids(third.records), third.next];
        });
        expect(skipped).toEqual([['g', 'c'], ['a', 'f'], ['b', 'd'], undefined]);
      });

      contract('keeps a cursor valid after the records it came from are deleted', async (repository) => {
        await putConversations(repository, SEVEN);
        const first = await repository.read((view) => view.list('conversations', { limit: 2 }));
        expect(ids(first.records)).toEqual(['g', 'c']);
        await repository.transact((tx) => tx.delete('conversations', 'c'));
        const rest = await repository.read((view) => view.list('conversations', { after: first.next! }));
        expect(ids(rest.records)).toEqual(['e', 'a', 'f', 'b', 'd']);
        const second = await repository.read((view) => view.list('conversations', { after: first.next!, limit: 2 }));
        expect(ids(second.records)).toEqual(['e', 'a']);
        // The cursor's record and the one after it both gone.
        await repository.transact((tx) => {
          tx.delete('conversations', 'a');
          tx.delete('conversations', 'f');
        });
        const last = await repository.read((view) => view.list('conversations', { after: second.next! }));
        expect(ids(last.records)).toEqual(['b', 'd']);
        expect(last.next).toBeUndefined();
      });

      contract('keeps the place of a record put again while paging, and adds new records to later pages', async (repository) => {
        await putConversations(repository, SEVEN);
        const first = await repository.read((view) => view.list('conversations', { limit: 3 }));
        expect(ids(first.records)).toEqual(['g', 'c', 'e']);
        await repository.transact((tx) => {
          tx.put('conversations', conversationRecord('c', 'c renamed'));
          tx.put('conversations', conversationRecord('h'));
          tx.put('conversations', conversationRecord('f', 'f renamed'));
        });
        const rest = await repository.read((view) => view.list('conversations', { after: first.next! }));
        expect(rest.records.map((record) => [record.id, record.name])).toEqual([
          ['a', 'Conversation a'],
          ['f', 'f renamed'],
          ['b', 'Conversation b'],
          ['d', 'Conversation d'],
          ['h', 'Conversation h'],
        ]);
        expect(await listIds(repository)).toEqual([...SEVEN, 'h']);
      });
    });

    describe('count', () => {
      contract('counts the records of a collection as they are put and deleted', async (repository) => {
        const count = (collection: 'conversations' | 'messages' = 'conversations') => repository.read((view) => view.count(collection));
        expect(await count()).toBe(0);
        await putConversations(repository, ['a', 'b', 'c']);
        expect(await count()).toBe(3);
        await repository.transact((tx) => tx.put('conversations', conversationRecord('b', 'renamed')));
        expect(await count()).toBe(3);
        await repository.transact((tx) => {
          tx.delete('conversations', 'a');
          tx.delete('conversations', 'absent');
        });
        expect(await count()).toBe(2);
        expect(await count('messages')).toBe(0);
      });
    });

    describe('versions', () => {
      contract('answers a version for each present record and undefined for each absent one, index for index', async (repository) => {
        await putConversations(repository, ['a', 'b']);
        const versions = await repository.read((view) => view.versions('conversations', ['a', 'missing', 'b', 'a']));
        expect(versions).toHaveLength(4);
        expectVersion(versions[0]);
        expect(versions[1]).toBeUndefined();
        expectVersion(versions[2]);
        expect(versions[3]).toBe(versions[0]);
        expect(await repository.read((view) => view.versions('conversations', []))).toEqual([]);
        expect(await repository.read((view) => view.versions('messages', ['a']))).toEqual([undefined]);
        // Reading changes nothing.
        await repository.read((view) => view.getMany('conversations', ['a', 'b']));
        expect(await repository.read((view) => view.versions('conversations', ['a', 'missing', 'b', 'a']))).toEqual(versions);
      });

      contract('changes the version of a record put again, and of no other record', async (repository) => {
        await putConversations(repository, ['a', 'b', 'c']);
        const versionsOf = () => repository.read((view) => view.versions('conversations', ['a', 'b', 'c']));
        const [a1, b1, c1] = await versionsOf();
        await repository.transact((tx) => tx.put('conversations', conversationRecord('b', 'renamed')));
        const [a2, b2, c2] = await versionsOf();
        expectVersion(b2);
        expect(b2).not.toBe(b1);
        expect([a2, c2]).toEqual([a1, c1]);
        // Writes to other records, new ones, deletions and other collections leave it alone.
        await repository.transact((tx) => {
          tx.put('conversations', conversationRecord('c', 'renamed'));
          tx.put('conversations', conversationRecord('d'));
          tx.delete('conversations', 'a');
          tx.put('messages', sampleRecord('messages', 'b'));
        });
        const [, b3, c3] = await versionsOf();
        expect(b3).toBe(b2);
        expect(c3).not.toBe(c2);
        await repository.transact((tx) => tx.put('conversations', conversationRecord('b', 'renamed again')));
        const [, b4] = await versionsOf();
        expect(b4).not.toBe(b3);
      });

      contract('answers undefined for a deleted record, and a new version once it is put back', async (repository) => {
        await putConversations(repository, ['a', 'b']);
        const [before] = await repository.read((view) => view.versions('conversations', ['a']));
        await repository.transact((tx) => tx.delete('conversations', 'a'));
        expect(await repository.read((view) => view.versions('conversations', ['a', 'b']))).toEqual([undefined, expect.any(Number)]);
        await repository.transact((tx) => tx.put('conversations', conversationRecord('a', 'back again')));
        const [after] = await repository.read((view) => view.versions('conversations', ['a']));
        expectVersion(after);
        expect(after).not.toBe(before);
      });
    });

    describe('transactions', () => {
      contract('lets a transaction read its own writes before they are committed', async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('old')));
        const seen = await repository.transact(async (tx) => {
          tx.put('conversations', conversationRecord('new'));
          tx.delete('conversations', 'old');
          return {
            added: (await tx.get('conversations', 'new'))?.id,
            removed: await tx.get('conversations', 'old'),
            all: ids((await tx.list('conversations')).records),
          };
        });
        expect(seen).toEqual({ added: 'new', removed: undefined, all: ['new'] });
      });

      contract('shows an async transaction its own writes in every read: get, getMany, list, count and versions', async (repository) => {
        await putConversations(repository, ['a', 'b', 'c']);
        const [a0, b0, c0] = await repository.read((view) => view.versions('conversations', ['a', 'b', 'c']));
        const seen = await repository.transact(async (tx) => {
          tx.put('conversations', conversationRecord('b', 'renamed'));
          tx.delete('conversations', 'a');
          tx.put('conversations', conversationRecord('d'));
          await tick();
          return {
            got: await tx.get('conversations', 'b'),
            many: await tx.getMany('conversations', ['a', 'b', 'c', 'd', 'missing']),
            listed: await tx.list('conversations'),
            pages: await pageThrough(tx, 1),
            offsetPage: ids((await tx.list('conversations', { offset: 1, limit: 1 })).records),
            count: await tx.count('conversations'),
            versions: await tx.versions('conversations', ['a', 'b', 'c', 'd']),
          };
        });
        expect(seen.got?.name).toBe('renamed');
        expect(seen.many.map((record) => record && [record.id, record.name])).toEqual([
          undefined,
          ['b', 'renamed'],
          ['c', 'Conversation c'],
          ['d', 'Conversation d'],
          undefined,
        ]);
        expect(ids(seen.listed.records)).toEqual(['b', 'c', 'd']);
        expect(seen.listed.next).toBeUndefined();
        expect(seen.pages).toEqual([['b'], ['c'], ['d']]);
        expect(seen.offsetPage).toEqual(['c']);
        expect(seen.count).toBe(3);
        const [a1, b1, c1, d1] = seen.versions;
        expect(a1).toBeUndefined();
        expectVersion(b1);
        expect(b1).not.toBe(b0);
        expect(c1).toBe(c0);
        expectVersion(d1);
        expectVersion(a0);
        // And once committed, everyone sees the same.
        const after = await repository.read(async (view) => ({
          listed: (await view.list('conversations')).records.map((record) => [record.id, record.name]),
          count: await view.count('conversations'),
          versions: await view.versions('conversations', ['a', 'b', 'c']),
        }));
        expect(after.listed).toEqual([
          ['b', 'renamed'],
          ['c', 'Conversation c'],
          ['d', 'Conversation d'],
        ]);
        expect(after.count).toBe(3);
        expect(after.versions[0]).toBeUndefined();
        expect(after.versions[1]).not.toBe(b0);
        expect(after.versions[2]).toBe(c0);
      });

      contract('keeps the writes an async transaction makes on both sides of an await, and answers its result', async (repository) => {
        const asyncWrite = async (tx: Transaction) => {
          tx.put('conversations', conversationRecord('before-await'));
          await Promise.resolve();
          await tick();
          tx.put('conversations', conversationRecord('after-await'));
          return 'done';
        };
        expect(await repository.transact(asyncWrite)).toBe('done');
        expect(await listIds(repository)).toEqual(['before-await', 'after-await']);
      });

      contract('applies the last write to a record within a transaction', async (repository) => {
        await putConversations(repository, ['kept']);
        await repository.transact(async (tx) => {
          tx.put('conversations', conversationRecord('put-then-deleted'));
          tx.delete('conversations', 'put-then-deleted');
          tx.delete('conversations', 'kept');
          tx.put('conversations', conversationRecord('kept', 'back'));
          tx.put('conversations', conversationRecord('twice', 'first'));
          tx.put('conversations', conversationRecord('twice', 'second'));
          expect(await tx.count('conversations')).toBe(2);
        });
        const records = (await repository.read((view) => view.list('conversations'))).records;
        expect(records.map((record) => record.name)).toEqual(['back', 'second']);
      });

      contract('shows nothing of a transaction to a concurrent read before the transaction resolves', async (repository) => {
        await putConversations(repository, ['c0', 'c1']);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let wrote!: () => void;
        const written = new Promise<void>((resolve) => (wrote = resolve));
        const running = repository.transact(async (tx) => {
          tx.put('conversations', conversationRecord('c2'));
          tx.put('conversations', conversationRecord('c1', 'renamed'));
          tx.delete('conversations', 'c0');
          await tx.get('conversations', 'c2');
          wrote();
          await gate;
          return 'committed';
        });
        // (If the transaction fails before it gets there, `running` says why.)
        await Promise.race([written, running]);
        let settled = false;
        const concurrent = repository.read(readState).finally(() => (settled = true));
        // A store may make reads wait for a running transaction (then they see it committed);
        // one that answers at once must answer the state before it.
        await Promise.race([concurrent, delay(1000)]);
        const answeredBeforeCommit = settled;
        release();
        expect(await running).toBe('committed');
        const seenMeanwhile = await concurrent;
        if (answeredBeforeCommit) {
          expect(seenMeanwhile).toEqual({
            listed: [
              ['c0', 'Conversation c0'],
              ['c1', 'Conversation c1'],
            ],
            c2: undefined,
            count: 2,
          });
        }
        expect(await repository.read(readState)).toEqual({
          listed: [
            ['c1', 'renamed'],
            ['c2', 'Conversation c2'],
          ],
          c2: conversationRecord('c2'),
          count: 2,
        });
      });

      contract('applies nothing of a transaction that throws', async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('kept')));
        await expect(
          repository.transact((tx) => {
            tx.put('conversations', conversationRecord('half-written'));
            tx.delete('conversations', 'kept');
            throw new Error('rule broken');
          }),
        ).rejects.toThrow('rule broken');
        expect(await listIds(repository)).toEqual(['kept']);
      });

      contract('applies nothing of an async transaction that rejects after awaiting its reads', async (repository) => {
        await putConversations(repository, ['kept', 'other']);
        const [versionBefore] = await repository.read((view) => view.versions('conversations', ['kept']));
        await expect(
          repository.transact(async (tx) => {
            tx.put('conversations', conversationRecord('half-written'));
            const kept = await tx.get('conversations', 'kept');
            tx.put('conversations', { ...kept!, name: 'changed' });
            await tick();
            tx.delete('conversations', 'other');
            expect(await tx.count('conversations')).toBe(2);
            throw new Error('rule broken later');
          }),
        ).rejects.toThrow('rule broken later');
        const after = await repository.read(async (view) => ({
          listed: (await view.list('conversations')).records,
          count: await view.count('conversations'),
          missing: await view.get('conversations', 'half-written'),
          versions: await view.versions('conversations', ['kept']),
        }));
        expect(after.listed).toEqual([conversationRecord('kept'), conversationRecord('other')]);
        expect(after.count).toBe(2);
        expect(after.missing).toBeUndefined();
        expect(after.versions).toEqual([versionBefore]);
      });

      contract('runs the transactions after a failed one as usual', async (repository) => {
        const outcomes = await Promise.allSettled([
          repository.transact((tx) => tx.put('conversations', conversationRecord('first'))),
          repository.transact(async (tx) => {
            tx.put('conversations', conversationRecord('lost'));
            await tx.get('conversations', 'first');
            throw new Error('failed in the middle');
          }),
          repository.transact(() => {
            throw new Error('failed at once');
          }),
          repository.transact(async (tx) => {
            await tx.count('conversations');
            tx.put('conversations', conversationRecord('last'));
          }),
        ]);
        expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
        await repository.transact((tx) => tx.put('conversations', conversationRecord('after')));
        expect(await listIds(repository)).toEqual(['first', 'last', 'after']);
      });

      contract('keeps every write of concurrent transactions', async (repository) => {
        await Promise.all(
          Array.from({ length: 25 }, (_, i) => repository.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`)))),
        );
        expect((await repository.read((view) => view.list('conversations'))).records).toHaveLength(25);
        expect(await repository.read((view) => view.count('conversations'))).toBe(25);
      });

      contract(
        `loses no update of ${concurrentTransactions} concurrent transactions that each read, await, then rewrite the same record`,
        async (repository) => {
          await repository.transact((tx) => tx.put('conversations', counterRecord(0)));
          await Promise.all(
            Array.from({ length: concurrentTransactions }, () =>
              repository.transact(async (tx) => {
                const current = await tx.get('conversations', 'counter');
                await tick();
                tx.put('conversations', counterRecord((current?.score?.manual ?? Number.NaN) + 1));
              }),
            ),
          );
          const counter = await repository.read((view) => view.get('conversations', 'counter'));
          expect(counter?.score?.manual).toBe(concurrentTransactions);
        },
      );
    });

    describe('change feed', () => describeChangeFeedContract(feedContract, concurrentTransactions));

    describe('records', () => {
      contract('answers deep-frozen records from every read, in and out of transactions', async (repository) => {
        const record = {
          ...conversationRecord('c1'),
          messages: ['m1'],
          score: { manual: 1, automatic: 2 },
          application: { nested: { list: [1] } },
        };
        await repository.transact((tx) => tx.put('conversations', record));
        const answered = await repository.read(async (view) => [
          await view.get('conversations', 'c1'),
          ...(await view.getMany('conversations', ['c1'])),
          ...(await view.list('conversations')).records,
          ...(await view.list('conversations', { limit: 1 })).records,
        ]);
        const inTransaction = await repository.transact(async (tx) => {
          tx.put('conversations', { ...record, id: 'c2', messages: ['m2'] });
          return [
            await tx.get('conversations', 'c1'),
            await tx.get('conversations', 'c2'),
            ...(await tx.getMany('conversations', ['c1', 'c2'])),
            ...(await tx.list('conversations')).records,
          ];
        });
        for (const [i, stored] of [...answered, ...inTransaction].entries()) {
          expect(stored, `record ${i}`).toBeDefined();
          expectDeepFrozen(stored, `record ${i}`);
        }
      });

      contract('never hands out a live reference: records read are frozen, records put are copied', async (repository) => {
        const record = { ...conversationRecord('c1'), created: { value: '2026-01-01T00:00:00.000Z' }, messages: ['m1'] };
        await repository.transact((tx) => tx.put('conversations', record));
        (record.created as { value: string }).value = 'changed by the caller';
        record.messages.push('m2');
        (record as { name?: string }).name = 'renamed by the caller';
        const stored = await repository.read((view) => view.get('conversations', 'c1'));
        expect(stored?.created.value).toBe('2026-01-01T00:00:00.000Z');
        expect(stored?.messages).toEqual(['m1']);
        expect(stored?.name).toBe('Conversation c1');
        expect(() => {
          (stored as { name?: string }).name = 'mutated';
        }).toThrow(TypeError);
        expect(() => {
          (stored!.created as { value: string }).value = 'mutated';
        }).toThrow(TypeError);
        expect(() => {
          (stored!.messages as string[]).push('mutated');
        }).toThrow(TypeError);
        expect(await repository.read((view) => view.get('conversations', 'c1'))).toEqual({
          ...conversationRecord('c1'),
          messages: ['m1'],
        });
      });

      contract('stores a record as it was put, though the caller changes it before the transaction ends', async (repository) => {
        const record = { ...conversationRecord('c1'), messages: ['m1'] };
        const seenInside = await repository.transact(async (tx) => {
          tx.put('conversations', record);
          record.messages.push('m2');
          (record as { name?: string }).name = 'renamed by the caller';
          await tick();
          return tx.get('conversations', 'c1');
        });
        const expected = { ...conversationRecord('c1'), messages: ['m1'] };
        expect(seenInside).toEqual(expected);
        expect(await repository.read((view) => view.get('conversations', 'c1'))).toEqual(expected);
      });
    });
  });
}

const ids = (records: readonly ({ readonly id: string } | undefined)[]) => records.map((record) => record?.id);

/** Lets timers and I/O run: a transaction awaiting this gives others every chance to interleave. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function putConversations(repository: Repository, list: readonly string[]): Promise<void> {
  await repository.transact((tx) => {
    for (const id of list) tx.put('conversations', conversationRecord(id));
  });
}

async function listIds(repository: Repository, page?: PageRequest): Promise<(string | undefined)[]> {
  return ids((await repository.read((view) => view.list('conversations', page))).records);
}

/** The ids of each page of conversations, following `next` from the first page until it is absent. */
async function pageThrough(view: ReadView, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  const most = (await view.count('conversations')) + 2;
  let after: string | undefined;
  do {
    const page = await view.list('conversations', after === undefined ? { limit } : { after, limit });
    pages.push(page.records.map((record) => record.id));
    if (page.next !== undefined) expect(typeof page.next).toBe('string');
    after = page.next;
    if (pages.length > most) throw new Error(`Paging with limit ${limit} went on past ${most} pages: ${JSON.stringify(pages)}`);
  } while (after !== undefined);
  return pages;
}

/** `list` cut into pages of `size`. */
const chunks = <T>(list: readonly T[], size: number): T[][] => {
  const result: T[][] = [];
  for (let i = 0; i < list.length; i += size) result.push(list.slice(i, i + size));
  return result;
};

const readState = async (view: ReadView) => ({
  listed: (await view.list('conversations')).records.map((record) => [record.id, record.name]),
  c2: await view.get('conversations', 'c2'),
  count: await view.count('conversations'),
});

const counterRecord = (value: number): ConversationRecord => ({ ...conversationRecord('counter'), score: { manual: value, automatic: 0 } });

function expectVersion(version: number | undefined): void {
  expect(typeof version).toBe('number');
  expect(Number.isNaN(version)).toBe(false);
}

function expectDeepFrozen(value: unknown, where: string): void {
  if (typeof value !== 'object' || value === null) return;
  expect(Object.isFrozen(value), `${where} is frozen`).toBe(true);
  for (const [key, nested] of Object.entries(value)) expectDeepFrozen(nested, `${where}.${key}`);
}
