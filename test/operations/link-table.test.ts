/**
 * The links of the link table (src/links.ts) whose meaning is the service's choice: a message's
 * annotations (the summaries of its conversation covering it), an annotation moving between
 * conversations, a message linked to another message, and the errors of associate.
 */
import { describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/index.js';
import { conversationWith, jsonTextOf, said, seeds, serviceForTest } from '../helpers/service.js';

const listed = (answer: { iterable: { id: string }[] } | undefined) => (answer?.iterable ?? []).map((item) => item.id);

describe('a message and an annotation', () => {
  it('an annotation of no conversation joins the message’s when linked, and the message lists it', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'one'), said('ASSISTANT', 'two'));
    const [first, second] = conversation.messages.iterable.map((m) => m.id);
    const annotation = await service.createAnnotation(seeds.annotation);
    await service.associate('messageAnnotations', first!, annotation.id);

    const after = await service.getConversation(conversation.id);
    expect(listed(after.annotations)).toEqual([annotation.id]);
    const messages = await service.listConversationMessages(conversation.id);
    expect(listed(messages.iterable[0]!.annotations)).toEqual([annotation.id]);
    expect(messages.iterable[1]!.annotations).toBeUndefined();
    expect(listed((await service.listAnnotations()).iterable[0]!.messages)).toEqual([first]);
    expect(second).toBeDefined();

    await service.disassociate('messageAnnotations', first!, annotation.id);
    expect((await service.listConversationMessages(conversation.id)).iterable[0]!.annotations).toBeUndefined();
    // The annotation stays the conversation's: only the coverage went.
    expect(listed((await service.getConversation(conversation.id)).annotations)).toEqual([annotation.id]);
  });

  it("refuses an annotation of another conversation (422), changing nothing: a message's annotations are its conversation's", async () => {
    const { service } = await serviceForTest();
    const one = await conversationWith(service, said('USER', 'one'));
    const other = await conversationWith(service, said('USER', 'other'));
    const annotation = await service.createAnnotation({ ...seeds.annotation, conversation: other.id });
    const error = await service.associate('messageAnnotations', one.messages.iterable[0]!.id, annotation.id).catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('UNPROCESSABLE');
    expect(listed((await service.listAnnotations()).iterable[0]!.messages)).toEqual([]);
    expect(listed((await service.getConversation(one.id)).annotations)).toEqual([]);
  });

  it('an annotation linked to another conversation leaves its first one, and the messages it covered', async () => {
    const { service } = await serviceForTest();
    const one = await conversationWith(service, said('USER', 'one'));
    const other = await conversationWith(service, said('USER', 'other'));
    const annotation = await service.createAnnotation({ ...seeds.annotation, conversation: one.id });
    await service.associate('messageAnnotations', one.messages.iterable[0]!.id, annotation.id);

    await service.associate('conversationAnnotations', other.id, annotation.id);
    expect(listed((await service.getConversation(one.id)).annotations)).toEqual([]);
    expect(listed((await service.getConversation(other.id)).annotations)).toEqual([annotation.id]);
    const moved = (await service.listAnnotations()).iterable[0]!;
    expect(moved.conversation).toEqual({ id: other.id });
    expect(listed(moved.messages)).toEqual([]);

    // Unlinked from its conversation, it stays, belonging to none.
    await service.disassociate('conversationAnnotations', other.id, annotation.id);
    expect((await service.listAnnotations()).iterable[0]!.conversation).toBeUndefined();
    expect(listed((await service.getConversation(other.id)).annotations)).toEqual([]);
  });
});

describe('a message and another message', () => {
  it('both list each other, and deleting one leaves the other listing nothing', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'question'), said('ASSISTANT', 'answer'));
    const [question, answer] = conversation.messages.iterable.map((m) => m.id) as [string, string];
    await service.associate('messageMessages', question, answer);
    const messages = (await service.listConversationMessages(conversation.id)).iterable;
    expect(listed(messages[0]!.messages)).toEqual([answer]);
    expect(listed(messages[1]!.messages)).toEqual([question]);

    await service.deleteMessage(answer);
    expect((await service.listConversationMessages(conversation.id)).iterable[0]!.messages).toBeUndefined();
  });

  it('refuses a message linked to itself (400)', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'alone'));
    const id = conversation.messages.iterable[0]!.id;
    await expect(service.associate('messageMessages', id, id)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('associate', () => {
  it('refuses an unknown link, and the link that places a message in its conversation', async () => {
    const { service } = await serviceForTest();
    await expect(service.associate('messageFriends' as never, 'a', 'b')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.associate('conversationMessages' as never, 'a', 'b')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('names the missing record: 404 with its kind', async () => {
    const { service } = await serviceForTest();
    const tag = await service.createTag(seeds.tag);
    await expect(service.associate('messageTags', 'ghost', tag.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { resource: 'message' },
    });
    await expect(service.associate('annotationTags', 'ghost', tag.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { resource: 'annotation' },
    });
  });

  it("a conversation's JSON (the cached, hand-written path) answers the new lists as its object does", async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'tagged'), said('ASSISTANT', 'linked'));
    const [first, second] = conversation.messages.iterable.map((m) => m.id) as [string, string];
    const tag = await service.createTag(seeds.tag);
    const source = await service.createWorkstreamPatternEngineSource(seeds.workstreamPatternEngineSource);
    // Read (and cached) before the links: a link rewrites the records, so the cached text is not answered again.
    await service.getConversationJson(conversation.id);
    await service.listConversationMessagesJsonPieces(conversation.id);
    await service.associate('messageTags', first, tag.id);
    await service.associate('messageMessages', first, second);
    await service.associate('conversationSources', conversation.id, source.id);
    const object = await service.getConversation(conversation.id);
    expect(JSON.parse(await service.getConversationJson(conversation.id))).toEqual(object);
    expect(listed(object.grounding.sources)).toEqual([source.id]);
    expect(listed(object.messages.iterable[0]!.reference!.tags)).toEqual([tag.id]);
    const page = await service.listConversationMessagesJsonPieces(conversation.id);
    expect(JSON.parse(jsonTextOf(page.text))).toEqual(await service.listConversationMessages(conversation.id));
  });

  it('a record never linked answers as before: no empty lists of the new links', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'plain'));
    const message = (await service.listConversationMessages(conversation.id)).iterable[0]!;
    expect(Object.keys(message).sort()).toEqual(['conversation', 'created', 'fragment', 'id', 'role', 'updated']);
    expect(Object.keys((await service.getConversation(conversation.id)).grounding)).toEqual(['messages', 'temporal']);
  });
});
