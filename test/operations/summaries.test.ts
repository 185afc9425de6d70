import { describe, expect, it } from 'vitest';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

describe('rename', () => {
  it("stores the summarizer's title as the name and answers the conversation", async () => {
    const { service, summarizer } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', 'How do I retry a flaky payment API?'), said('ASSISTANT', 'Use backoff.'));

    const renamed = await service.renameConversation(id, { transferables: false });
    // The fake's title: the first five words of the first message.
    expect(renamed.name).toBe('How do I retry a');
    expect((await service.getConversation(id)).name).toBe(renamed.name);
    expect(summarizer.calls.at(-1)?.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
    expect(JSON.stringify(renamed)).not.toContain('flaky payment');
  });

  it('refuses a conversation without text, without asking the summarizer', async () => {
    const { service, summarizer } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', '   '));
    await expect(service.renameConversation(id)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    expect(summarizer.calls).toEqual([]);
    expect((await service.getConversation(id)).name).toBeUndefined();
  });
});

describe('summarize', () => {
  it('stores a SUMMARY annotation linked both ways and answers references to both', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'Question?'), said('ASSISTANT', 'Answer.'));

    const output = await service.summarizeConversation(conversation.id);
    expect(output.conversation).toEqual({ id: conversation.id });
    const after = await service.getConversation(conversation.id);
    const annotation = after.annotations.iterable.find((a) => a.id === output.annotation.id)?.reference;
    expect(annotation).toMatchObject({ type: 'SUMMARY', conversation: { id: conversation.id } });
    expect(annotation?.text).toBeTruthy();
    expect(annotation?.messages?.iterable.map((m) => m.id)).toEqual(conversation.messages.iterable.map((m) => m.id));
    const listed = (await service.listAnnotations()).iterable.find((a) => a.id === output.annotation.id);
    expect(listed?.conversation).toEqual({ id: conversation.id });
    // Each covered message names the summary, in the conversation and in its messages listing.
    for (const message of after.messages.iterable) expect(message.reference?.annotations?.iterable).toEqual([{ id: output.annotation.id }]);
    for (const message of (await service.listConversationMessages(conversation.id)).iterable) {
      expect(message.annotations?.iterable).toEqual([{ id: output.annotation.id }]);
    }
  });

  it('drops a deleted message from the summaries that cover it, and a deleted summary from its messages', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'Question?'), said('ASSISTANT', 'Answer.'), said('USER', 'Thanks!'));
    const [first, second] = conversation.messages.iterable.map((m) => m.id);
    const { annotation } = await service.summarizeConversation(conversation.id);
    await service.deleteMessage(second!);
    const covered = (await service.listAnnotations()).iterable.find((a) => a.id === annotation.id)?.messages?.iterable.map((m) => m.id);
    expect(covered).toEqual([first, conversation.messages.iterable[2]!.id]);
    await service.deleteAnnotation(annotation.id);
    const messages = (await service.listConversationMessages(conversation.id)).iterable;
    expect(messages.map((m) => m.annotations)).toEqual([undefined, undefined]);
  });

  it('summarizes what is new since the last summary, and everything when nothing is new', async () => {
    const { service, summarizer } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'first question'), said('ASSISTANT', 'first answer'));
    const covered = async (annotationId: string) =>
      (await service.listAnnotations()).iterable.find((a) => a.id === annotationId)?.messages?.iterable.map((m) => m.id);
    const first = await service.summarizeConversation(conversation.id);
    const old = conversation.messages.iterable.map((m) => m.id);
    expect(await covered(first.annotation.id)).toEqual(old);

    const added = await service.createMessage({
      role: 'USER',
      fragment: { string: { raw: 'a follow-up' } },
      conversation: { id: conversation.id },
    });
    const second = await service.summarizeConversation(conversation.id);
    expect(await covered(second.annotation.id)).toEqual([added.id]);
    expect(summarizer.calls.at(-1)?.messages.map((m) => m.text)).toEqual(['a follow-up']);

    const third = await service.summarizeConversation(conversation.id);
    expect(await covered(third.annotation.id)).toEqual([...old, added.id]);
    expect((await service.getConversation(conversation.id)).annotations.iterable).toHaveLength(3);
  });

  it('summarizes only the messages named in the input', async () => {
    const { service, summarizer } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'first'), said('ASSISTANT', 'second'), said('USER', 'third'));
    const chosen = conversation.messages.iterable[1]!.id;

    const output = await service.summarizeConversation(conversation.id, { messages: { iterable: [{ id: chosen }] } });
    expect(summarizer.calls.at(-1)?.messages.map((m) => m.text)).toEqual(['second']);
    const annotation = (await service.listAnnotations()).iterable.find((a) => a.id === output.annotation.id);
    expect(annotation?.messages?.iterable).toEqual([{ id: chosen }]);
  });

  it('rejects messages of another conversation, empty conversations and unknown ids, storing nothing', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'mine'));
    const other = await conversationWith(service, said('USER', 'theirs'));
    const empty = await conversationWith(service);

    await expect(
      service.summarizeConversation(conversation.id, { messages: { iterable: [{ id: other.messages.iterable[0]!.id }] } }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: ['messages', 'iterable', 0, 'id'] }] },
    });
    await expect(service.summarizeConversation(conversation.id, { messages: [] } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(service.summarizeConversation(empty.id)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    await expect(service.summarizeConversation('ghost')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.listAnnotations()).iterable).toEqual([]);
  });

  it('uses the embedded summarizer by default, which loads on first use and unloads with the models', async () => {
    const { createService } = await import('../../src/index.js');
    const service = await createService();
    const builtin = async () => (await service.listModels()).iterable.find((m) => m.custom === false);
    expect((await builtin())?.loaded).toBe(false);
    const { id } = await service.createConversation({
      type: 'COPILOT',
      messages: [
        said('USER', 'How do I parse JSON safely in TypeScript?'),
        said('ASSISTANT', 'Use zod to validate the parsed value against a schema.'),
      ],
    });
    const renamed = await service.renameConversation(id);
    expect(renamed.name?.length).toBeGreaterThan(0);
    expect((await builtin())?.loaded).toBe(true);
    await service.unloadModels();
    expect((await builtin())?.loaded).toBe(false);
    await service.summarizeConversation(id);
    expect((await builtin())?.loaded).toBe(true);
  });
});
