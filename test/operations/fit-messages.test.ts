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
});
