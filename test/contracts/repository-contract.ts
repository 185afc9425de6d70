import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';

/**
 * The behaviour every Repository must have. `open` gives a fresh, empty repository; the suite
 * closes what it opens.
 */
export function describeRepositoryContract(name: string, open: () => Promise<Repository>): void {
  describe(`Repository contract: ${name}`, () => {
    const withRepository = async (test: (repository: Repository) => Promise<void>) => {
      const repository = await open();
      try {
        await test(repository);
      } finally {
        await repository.close();
      }
    };

    it('starts empty', () =>
      withRepository(async (repository) => {
        expect(await repository.read((view) => view.get('conversations', 'missing'))).toBeUndefined();
        expect(await repository.read((view) => view.list('conversations'))).toEqual([]);
      }));

    it('stores what a transaction puts and answers the transaction result', () =>
      withRepository(async (repository) => {
        const result = await repository.transact((tx) => {
          tx.put('conversations', conversationRecord('c1'));
          return 'done';
        });
        expect(result).toBe('done');
        expect(await repository.read((view) => view.get('conversations', 'c1'))).toEqual(conversationRecord('c1'));
      }));

    it('stores only JSON values, refusing the rest with INVALID_INPUT and storing nothing of that transaction', () =>
      withRepository(async (repository) => {
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        for (const value of [10n, new Date(0), () => 1, Number.NaN, Infinity, cycle, new Map(), Symbol('s')]) {
          const attempt = repository.transact((tx) => {
            tx.put('conversations', conversationRecord('first'));
            tx.put('conversations', { ...conversationRecord('bad'), application: { value } });
          });
          await expect(attempt).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        }
        expect(await repository.read((view) => view.list('conversations'))).toEqual([]);
        // What JSON drops, the store drops: undefined fields are left out.
        await repository.transact((tx) => tx.put('conversations', { ...conversationRecord('c1'), name: undefined }));
        expect(Object.keys((await repository.read((view) => view.get('conversations', 'c1')))!)).not.toContain('name');
      }));

    it('refuses a transaction function that returns a promise, keeping none of its writes', () =>
      withRepository(async (repository) => {
        const asyncWrite = async (tx: Parameters<Parameters<Repository['transact']>[0]>[0]) => {
          tx.put('conversations', conversationRecord('before-await'));
          await Promise.resolve();
          tx.put('conversations', conversationRecord('after-await'));
        };
        // @ts-expect-error: an async function does not compile as a transaction.
        await expect(repository.transact(asyncWrite)).rejects.toThrow(/synchronous/);
        expect(await repository.read((view) => view.list('conversations'))).toEqual([]);
      }));

    it('lists records in insertion order, with replacements in place', () =>
      withRepository(async (repository) => {
        await repository.transact((tx) => {
          for (const id of ['b', 'a', 'c']) tx.put('conversations', conversationRecord(id));
        });
        await repository.transact((tx) => tx.put('conversations', conversationRecord('a', 'renamed')));
        const listed = await repository.read((view) => view.list('conversations'));
        expect(listed.map((record) => [record.id, record.name])).toEqual([
          ['b', 'Conversation b'],
          ['a', 'renamed'],
          ['c', 'Conversation c'],
        ]);
      }));

    it('deletes records, and deleting an absent record is harmless', () =>
      withRepository(async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
        await repository.transact((tx) => {
          tx.delete('conversations', 'c1');
          tx.delete('conversations', 'never-existed');
        });
        expect(await repository.read((view) => view.list('conversations'))).toEqual([]);
      }));

    it('lets a transaction read its own writes before they are committed', () =>
      withRepository(async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('old')));
        const seen = await repository.transact((tx) => {
          tx.put('conversations', conversationRecord('new'));
          tx.delete('conversations', 'old');
          return {
            added: tx.get('conversations', 'new')?.id,
            removed: tx.get('conversations', 'old'),
            all: tx.list('conversations').map((r) => r.id),
          };
        });
        expect(seen).toEqual({ added: 'new', removed: undefined, all: ['new'] });
      }));

    it('applies nothing of a transaction that throws', () =>
      withRepository(async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('kept')));
        await expect(
          repository.transact((tx) => {
            tx.put('conversations', conversationRecord('half-written'));
            tx.delete('conversations', 'kept');
            throw new Error('rule broken');
          }),
        ).rejects.toThrow('rule broken');
        expect((await repository.read((view) => view.list('conversations'))).map((r) => r.id)).toEqual(['kept']);
      }));

    it('never hands out a live reference: records read are frozen, records put are copied', () =>
      withRepository(async (repository) => {
        const record = { ...conversationRecord('c1'), created: { value: '2026-01-01T00:00:00.000Z' } };
        await repository.transact((tx) => tx.put('conversations', record));
        (record.created as { value: string }).value = 'changed by the caller';
        const stored = await repository.read((view) => view.get('conversations', 'c1'));
        expect(stored?.created.value).toBe('2026-01-01T00:00:00.000Z');
        expect(() => {
          (stored as { name?: string }).name = 'mutated';
        }).toThrow(TypeError);
        expect(() => {
          (stored!.created as { value: string }).value = 'mutated';
        }).toThrow(TypeError);
      }));

    it('keeps every write of concurrent transactions', () =>
      withRepository(async (repository) => {
        await Promise.all(
          Array.from({ length: 25 }, (_, i) => repository.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`)))),
        );
        expect(await repository.read((view) => view.list('conversations'))).toHaveLength(25);
      }));

    it('keeps collections apart', () =>
      withRepository(async (repository) => {
        await repository.transact((tx) => tx.put('conversations', conversationRecord('same-id')));
        expect(await repository.read((view) => view.get('anchors', 'same-id'))).toBeUndefined();
      }));
  });
}
