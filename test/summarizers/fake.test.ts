import { describe, expect, it } from 'vitest';
import type { SummarizerMessage } from '../../src/ports.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';

const messages: SummarizerMessage[] = [
  { id: 'a', role: 'USER', text: 'How do I undo the last git commit but keep my changes?' },
  { id: 'b', role: 'ASSISTANT', text: 'Run git reset --soft HEAD~1.' },
];

describe('createFakeSummarizer', () => {
  it('answers predictable defaults', async () => {
    const fake = createFakeSummarizer();
    expect(await fake.title(messages)).toBe('How do I undo the');
    expect(await fake.summarize(messages)).toBe('Summary of 2 messages.');
    expect(fake.model.id).toBe('fake-summarizer');
  });

  it('records every call with a copy of its messages', async () => {
    const fake = createFakeSummarizer();
    const input = messages.map((m) => ({ ...m }));
    await fake.title(input);
    await fake.summarize(input.slice(1));
    input[0]!.text = 'changed afterwards';
    expect(fake.calls).toEqual([
      { method: 'title', messages },
      { method: 'summarize', messages: [messages[1]] },
    ]);
  });

  it('answers configured strings or functions, which may fail', async () => {
    const fake = createFakeSummarizer({
      title: 'Undoing a commit',
      summary: async (m) => `${m.length} messages about git.`,
    });
    expect(await fake.title(messages)).toBe('Undoing a commit');
    expect(await fake.summarize(messages)).toBe('2 messages about git.');

    const failing = createFakeSummarizer({
      summary: () => {
        throw new Error('model crashed');
      },
    });
    await expect(failing.summarize(messages)).rejects.toThrow('model crashed');
    expect(failing.calls).toHaveLength(1);
  });

  it('tracks loading like the real summarizer', async () => {
    const fake = createFakeSummarizer();
    expect(fake.isLoaded()).toBe(false);
    await fake.title(messages);
    expect(fake.isLoaded()).toBe(true);
    await fake.unload();
    expect(fake.isLoaded()).toBe(false);
  });
});
