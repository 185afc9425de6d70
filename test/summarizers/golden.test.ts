/**
 * Golden outputs: the embedded summarizer's title and summary for every hand-written developer
 * conversation (test/fixtures/dev-conversations.ts), so that any change to output shows in review
 * as a diff of test/summarizers/__snapshots__/dev-conversations.golden.json. When output changes on
 * purpose, bump EXTRACTIVE_SUMMARIZER_VERSION and update with `npx vitest run -u`.
 */
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer, EXTRACTIVE_SUMMARIZER_VERSION } from '../../src/summarizers/index.js';
import { DEV_CONVERSATIONS } from '../fixtures/dev-conversations.js';

describe('golden outputs of the dev fixtures', () => {
  it('match the reviewed snapshot', async () => {
    const summarizer = createExtractiveSummarizer();
    const outputs: Record<string, { title: string; summary: string }> = {};
    for (const c of DEV_CONVERSATIONS) {
      const messages = c.messages.map((m, i) => ({ id: `m${i + 1}`, role: m.role, text: m.text }));
      outputs[c.id] = { title: await summarizer.title(messages), summary: await summarizer.summarize(messages) };
    }
    await expect(JSON.stringify({ version: EXTRACTIVE_SUMMARIZER_VERSION, outputs }, null, 2) + '\n').toMatchFileSnapshot(
      './__snapshots__/dev-conversations.golden.json',
    );
  });
});
