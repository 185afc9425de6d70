/**
 * Journal lines carry what changed, not whole records: appending a message to a long conversation
 * writes its id, not the conversation's whole list again, and replaying the patches at the next
 * start gives back the same records.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository, createService } from '../../src/index.js';
import { said, steppingClock } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

async function lastJournalLine(file: string): Promise<string> {
  const folder = path.dirname(file);
  const journals = (await readdir(folder)).filter((name) => name.includes('.journal-')).sort();
  const lines = (await readFile(path.join(folder, journals.at(-1)!), 'utf8')).trim().split('\n');
  return lines.at(-1)!;
}

describe('journal patches', () => {
  it('writes an append to a conversation of thousands of messages in a few hundred bytes, and replays it', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const service = await createService({ repository: await createJsonFileRepository({ file }), clock: steppingClock() });
    const messages = Array.from({ length: 5_000 }, (_, i) => said(i % 2 ? 'ASSISTANT' : 'USER', `message ${i}`));
    const conversation = await service.createConversation({ type: 'COPILOT', messages });
    const added = await service.createMessage({ ...said('USER', 'one more'), conversation: { id: conversation.id } });
    const appendLine = await lastJournalLine(file);
    // The new message itself, and the conversation's patch: the new id and its `updated`.
    expect(appendLine.length).toBeLessThan(1_000);
    expect(JSON.parse(appendLine).changes).toContainEqual([
      'conversations',
      conversation.id,
      { set: { updated: expect.any(Object) }, append: { messages: [added.id] } },
      'patch',
    ]);

    await service.deleteMessage(conversation.messages.iterable[10]!.id);
    expect((await lastJournalLine(file)).length).toBeLessThan(1_000);
    const expected = (await service.listConversationMessages(conversation.id)).iterable.map((m) => m.id);
    const before = await service.getConversation(conversation.id);
    // Reopened as after a crash (the first never closed, so never compacted): the patches are replayed.
    const reopened = await createService({
      repository: await createJsonFileRepository({ file, takeOverLock: true }),
      clock: steppingClock(),
    });
    expect((await reopened.listConversationMessages(conversation.id)).iterable.map((m) => m.id)).toEqual(expected);
    expect(await reopened.getConversation(conversation.id)).toEqual(before);
    await reopened.close();
  });
});
