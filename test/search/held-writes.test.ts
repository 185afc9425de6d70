import { describe, expect, it } from 'vitest';
import type { RecordChange } from '../../src/ports.js';
import { HeldWrites } from '../../src/search/held-writes.js';

const change = (id: string): RecordChange[] => [{ collection: 'messages', id, record: null }];

describe('HeldWrites', () => {
  it('applies writes at once while nothing holds them, else in order once the last hold is released', () => {
    const applied: string[] = [];
    const writes = new HeldWrites((changes) => applied.push(changes[0]!.id));
    writes.apply(change('a'));
    const first = writes.hold();
    const second = writes.hold();
    writes.apply(change('b'));
    writes.apply(change('c'));
    first();
    first();
    expect(applied).toEqual(['a']);
    second();
    expect(applied).toEqual(['a', 'b', 'c']);
    writes.apply(change('d'));
    expect(applied).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reports a held write that failed to the next writer, after applying that writer’s own', () => {
    const applied: string[] = [];
    const writes = new HeldWrites((changes) => {
      if (changes[0]!.id === 'bad') throw new Error('index full');
      applied.push(changes[0]!.id);
    });
    const release = writes.hold();
    writes.apply(change('bad'));
    writes.apply(change('b'));
    release();
    expect(applied).toEqual(['b']);
    expect(() => writes.apply(change('c'))).toThrow('index full');
    expect(applied).toEqual(['b', 'c']);
    writes.apply(change('d'));
    expect(applied).toEqual(['b', 'c', 'd']);
  });
});
