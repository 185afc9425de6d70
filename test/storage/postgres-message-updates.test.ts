/**
 * The message and annotation updates, scores and conversation starts on the PostgreSQL store, with
 * two instances on one database (two stores, each with its own pool, record cache and cached
 * answers, as two processes would have): an edit made through one is what the other answers and
 * searches at once, and increments sent to both together all count.
 */
import { expect, it, onTestFinished } from 'vitest';
import { createService, type Service } from '../../src/index.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { said, seeds } from '../helpers/service.js';

const searchFor = (query: string) => ({ engines: { iterable: [{ query }] } });

describeWithPostgres('message and annotation updates on PostgreSQL', (server) => {
  /** Two services on one fresh schema, closed after the test. */
  const twoInstances = async (): Promise<[Service, Service]> => {
    const schema = freshSchema();
    const open = async () => {
      const repository = await createPostgresRepository({ connectionString: server().url }, { schema });
      const service = await createService({ repository, summarizer: createFakeSummarizer() });
      onTestFinished(() => service.close());
      return service;
    };
    // One after the other: the first runs the migrations.
    const a = await open();
    return [a, await open()];
  };

  it('a value updated through one instance is what the other answers and finds at once, the old text no longer', async () => {
    const [a, b] = await twoInstances();
    const conversation = await a.createConversation({
      type: 'COPILOT',
      messages: [said('USER', 'reverse a list'), said('ASSISTANT', 'try the aardvark way')],
    });
    const reply = conversation.messages.iterable[1]!.id;
    // Cached on b before the edit.
    expect(await b.getConversationJson(conversation.id)).toContain('aardvark');
    expect((await b.searchMessages(searchFor('aardvark'))).iterable.map((hit) => hit.identifier)).toEqual([reply]);

    await a.updateMessageValue({ id: reply, fragment: { string: { raw: 'call reversed on the zebra' } } });
    const json = await b.getConversationJson(conversation.id);
    expect(json).toContain('zebra');
    expect(json).not.toContain('aardvark');
    expect((await b.getMessage(reply)).fragment?.string?.raw).toBe('call reversed on the zebra');
    expect((await b.searchMessages(searchFor('zebra'))).iterable.map((hit) => hit.identifier)).toEqual([reply]);
    expect((await b.searchMessages(searchFor('aardvark'))).iterable).toEqual([]);
    expect((await b.searchConversations(searchFor('zebra'))).iterable.map((hit) => hit.identifier)).toEqual([conversation.id]);
  });

  it('an annotation edited through one instance is searched by its new text through the other', async () => {
    const [a, b] = await twoInstances();
    const conversation = await a.createConversation({ type: 'COPILOT', messages: [said('USER', 'rivers and lakes')] });
    const note = await a.createAnnotation({ type: 'DESCRIPTION', text: 'all about the walrus', conversation: conversation.id });
    expect((await b.searchAnnotations(searchFor('walrus'))).iterable.map((hit) => hit.identifier)).toEqual([note.id]);
    await a.updateAnnotation({ id: note.id, text: 'all about the narwhal' });
    expect((await b.getAnnotation(note.id)).text).toBe('all about the narwhal');
    expect((await b.searchAnnotations(searchFor('narwhal'))).iterable.map((hit) => hit.identifier)).toEqual([note.id]);
    expect((await b.searchAnnotations(searchFor('walrus'))).iterable).toEqual([]);
  });

  it('increments sent to both instances together all count', async () => {
    const [a, b] = await twoInstances();
    const conversation = await a.createConversation({ type: 'COPILOT', messages: [said('USER', 'score me')] });
    const message = conversation.messages.iterable[0]!.id;
    const note = await a.createAnnotation(seeds.annotation);
    const times = 10;
    await Promise.all(
      Array.from({ length: times }, () =>
        [a, b].flatMap((service) => [
          service.incrementMessageScores(message, { conversationMessage: { reuse: true } }),
          service.incrementAnnotationScores(note.id, { annotation: { searched: true } }),
        ]),
      ).flat(),
    );
    expect((await b.getMessage(message)).score).toMatchObject({ reuse: 2 * times });
    expect((await a.getAnnotation(note.id)).score).toMatchObject({ searched: 2 * times });
  });

  it('a conversation started from an asset is linked to it both ways; an unknown asset creates nothing', async () => {
    const [a, b] = await twoInstances();
    const asset = await a.createAsset(seeds.asset);
    const { conversation } = await a.createConversationFromAsset(asset.id);
    expect((await b.getConversation(conversation.id)).assets?.iterable.map((x) => x.id)).toEqual([asset.id]);
    expect((await b.listAssets()).iterable[0]!.conversations.iterable.map((x) => x.id)).toEqual([conversation.id]);
    await expect(b.createConversationFromAsset('no-such-asset')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await a.listConversationIdentifiers()).iterable).toEqual([{ id: conversation.id }]);
  });
});
