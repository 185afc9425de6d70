/** What a summarizer or a model reads of a conversation longer than its budget. */
import { describe, expect, it } from 'vitest';
import { fitMessages } from '../../src/operations/fit-messages.js';
import type { SummarizerMessage } from '../../src/ports.js';

const message = (i: number, role: SummarizerMessage['role'], chars: number): SummarizerMessage => ({
  id: `m${i}`,
  role,
  text: `message ${i} `.padEnd(chars, 'x'),
});
const chat = (count: number, chars: number) => Array.from({ length: count }, (_, i) => message(i, i % 2 ? 'ASSISTANT' : 'USER', chars));

describe('fitMessages', () => {
  it('keeps a conversation that fits whole', () => {
    const messages = chat(4, 100);
    expect(fitMessages(messages, 1_000)).toEqual({ messages, omitted: 0, before: 4 });
  });

  it('keeps the first request, the opening of the answer to it, and the latest messages, within the budget', () => {
    const fitted = fitMessages(chat(100, 1_000), 8_000);
    const ids = fitted.messages.map((m) => m.id);
    expect(ids.slice(0, 2)).toEqual(['m0', 'm1']);
    expect(ids.at(-1)).toBe('m99');
    expect(fitted.before).toBe(2);
    expect(fitted.omitted).toBe(100 - ids.length);
    expect(fitted.messages[1]!.text.length).toBeLessThanOrEqual(1_000);
    expect(fitted.messages.reduce((sum, m) => sum + m.text.length, 0)).toBeLessThanOrEqual(8_000);
  });

  it('leaves out what comes before the first request, and keeps a last answer whole rather than twice', () => {
    const messages = [message(0, 'SYSTEM', 3_000), message(1, 'USER', 100), message(2, 'ASSISTANT', 3_000)];
    const fitted = fitMessages(messages, 4_000);
    expect(fitted.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(fitted.messages[1]!.text).toBe(messages[2]!.text);
  });

  it('gives the answer to the first request what the latest messages leave unused', () => {
    const messages = [message(0, 'USER', 100), message(1, 'ASSISTANT', 5_000), message(2, 'USER', 100), message(3, 'ASSISTANT', 100)];
    const fitted = fitMessages(messages, 5_000);
    expect(fitted.messages.map((m) => m.text.length)).toEqual([100, 4_700, 100, 100]);
    expect(fitted.omitted).toBe(0);
  });

  it('counts as left out only what is missing between the kept parts, where the gap is marked', () => {
    const fitted = fitMessages([message(0, 'SYSTEM', 30_000), ...chat(4, 100).map((m, i) => ({ ...m, id: `c${i}` }))], 1_000);
    expect(fitted.messages.map((m) => m.id)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(fitted.omitted).toBe(0);
    const alone = fitMessages([message(0, 'SYSTEM', 3_000), message(1, 'ASSISTANT', 100), message(2, 'USER', 3_000)], 1_000);
    // The first request is the last message: it gets the whole budget, and nothing is marked.
    expect(alone.messages.map((m) => m.text.length)).toEqual([1_000]);
    expect(alone.omitted).toBe(0);
  });
});
