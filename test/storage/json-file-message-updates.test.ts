/**
 * A reply streamed into a message on the JSON-file store (many `updateMessageValue` calls, with
 * compactions between them) is what the store holds after a restart, and what its saved search
 * index finds: the last text, none of the earlier ones. Messages are written whole to the journal
 * and moved to message files at compactions; the search index is saved beside the snapshot.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository, createService, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const searchFor = (query: string) => ({ engines: { iterable: [{ query }] } });
const found = async (service: Service, query: string) =>
  (await service.searchMessages(searchFor(query))).iterable.map((hit) => hit.identifier);

describe('JSON-file store: a message value updated many times, an annotation edited, scores', () => {
  it('is kept, and searched, as last written across compactions and a restart', async () => {
    const file = path.join(await tempDir('cms-message-updates-'), 'db.json');
    // A tiny threshold: a compaction every few writes.
    const open = async () =>
      createService({ repository: await createJsonFileRepository({ file, compactAfterBytes: 4096 }), summarizer: createFakeSummarizer() });
    let service = await open();
    const conversation = await service.createConversation({ type: 'COPILOT', messages: [said('USER', 'tell me a story')] });
    const reply = await service.createMessage({ conversation: { id: conversation.id }, ...said('ASSISTANT', '') });
    // Each chunk adds a word no other chunk has: `wolf0` … `wolf19`, then the text starts again
    // (a prompt edited) with `chunk20` … `chunk39`. A search may find a word one typo away: the
    // words of the two halves are far apart.
    let text = 'beginning';
    for (let chunk = 0; chunk < 40; chunk++) {
      text = `${chunk === 20 ? 'restarted' : text} ${chunk < 20 ? 'wolf' : 'chunk'}${chunk} ${'filler '.repeat(20)}`;
      await service.updateMessageValue({ id: reply.id, fragment: { string: { raw: text } } });
    }
    // Written to the journal as patches of the stored records (their text, their score).
    const note = await service.createAnnotation({ type: 'SUMMARY', text: 'a walrus story', conversation: conversation.id });
    await service.updateAnnotation({ id: note.id, text: 'a narwhal story', favorited: true });
    await service.incrementAnnotationScores(note.id, { annotation: { reuse: true } });
    await service.incrementMessageScores(reply.id, { conversationMessage: { searched: true } });
    const check = async () => {
      expect(await service.getAnnotation(note.id)).toMatchObject({ text: 'a narwhal story', favorited: true, score: { reuse: 1 } });
      expect((await service.searchAnnotations(searchFor('walrus'))).iterable).toEqual([]);
      expect((await service.getMessage(reply.id)).score).toMatchObject({ searched: 1 });
      expect((await service.getMessage(reply.id)).fragment?.string?.raw).toBe(text);
      expect(await found(service, 'chunk39')).toEqual([reply.id]);
      expect(await found(service, 'chunk25')).toEqual([reply.id]);
      expect(await found(service, 'wolf19')).toEqual([]);
      expect(await found(service, 'wolf3')).toEqual([]);
      expect(await found(service, 'beginning')).toEqual([]);
      expect((await service.getConversation(conversation.id)).messages.iterable.map((m) => m.id)).toEqual([
        conversation.messages.iterable[0]!.id,
        reply.id,
      ]);
    };
    await check();
    await service.close();
    service = await open();
    await check();
    await service.close();
  });
});
