/**
 * The change feed a store in one process delivers through (`ChangeEmitter`, exported by
 * `conversation-model-service/store-kit`): what a listener that misbehaves cannot break, and how
 * batches are numbered.
 */
import { describe, expect, it } from 'vitest';
import { type ChangeBatch, createMemoryRepository } from '../../src/index.js';
import { ChangeEmitter } from '../../src/stores/change-emitter.js';
import { conversationRecord } from '../helpers/records.js';

const change = (id: string) => ({ collection: 'conversations' as const, id, record: conversationRecord(id) });

describe('ChangeEmitter', () => {
  it('reports what a listener throws, and still delivers the batch to the others; the write stands', async () => {
    const reported: unknown[] = [];
    const emitter = new ChangeEmitter((error) => reported.push(error));
    const after: ChangeBatch[] = [];
    emitter.subscribe(() => {
      throw new Error('listener broke');
    });
    emitter.subscribe((batch) => after.push(batch));
    expect(emitter.emit([change('a')])).toBe(1);
    expect(after.map((batch) => batch.seq)).toEqual([1]);
    expect(reported).toEqual([new Error('listener broke')]);

    // In a store: the transaction is committed and resolves, though a listener throws.
    const repository = createMemoryRepository();
    repository.changes!.subscribe(() => {
      throw new Error('listener broke');
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      await expect(repository.transact((tx) => tx.put('conversations', conversationRecord('kept')))).resolves.toBeUndefined();
    } finally {
      console.error = original;
    }
    expect(await repository.read((view) => view.get('conversations', 'kept'))).toEqual(conversationRecord('kept'));
    expect(errors).toHaveLength(1);
  });

  it('numbers batches one past the last, or as the store numbers them, always upward; delivers none for no changes', async () => {
    const emitter = new ChangeEmitter();
    const seen: number[] = [];
    emitter.subscribe((batch) => seen.push(batch.seq));
    expect(await emitter.caughtUp()).toBe(0);
    expect(emitter.emit([])).toBeUndefined();
    expect(emitter.emit([change('a')])).toBe(1);
    expect(emitter.emit([change('b')], 40)).toBe(40);
    expect(() => emitter.emit([change('c')], 40)).toThrow(RangeError);
    expect(() => emitter.emit([change('c')], Number.NaN)).toThrow(RangeError);
    expect(emitter.emit([change('c')])).toBe(41);
    expect(seen).toEqual([1, 40, 41]);
    expect(await emitter.caughtUp()).toBe(41);
  });

  it('hands out frozen batches; a listener that stops during a delivery is not called for it after', () => {
    const emitter = new ChangeEmitter();
    const calls: string[] = [];
    let stopSecond = () => {};
    emitter.subscribe((batch) => {
      calls.push('first');
      expect(Object.isFrozen(batch) && Object.isFrozen(batch.changes)).toBe(true);
      stopSecond();
    });
    stopSecond = emitter.subscribe(() => calls.push('second'));
    // The same function twice: two subscriptions, each stopped by its own call.
    const twice = () => calls.push('twice');
    const stopOne = emitter.subscribe(twice);
    emitter.subscribe(twice);
    emitter.emit([change('a')]);
    stopOne();
    emitter.emit([change('b')]);
    expect(calls).toEqual(['first', 'twice', 'twice', 'first', 'twice']);
  });
});
