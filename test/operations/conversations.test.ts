import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createJsonFileRepository, createMemoryRepository, isServiceError, type Repository } from '../../src/index.js';
import { conversationWith, jsonTextOf, said, serviceForTest } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The store these tests run on (TEST_STORE), opened here so a test can write to it beside the service. */
async function storeForTest(): Promise<Repository> {
  if (process.env.TEST_STORE !== 'json-file') return createMemoryRepository();
  const repository = await createJsonFileRepository({ file: path.join(await tempDir(), 'db.json') });
  onTestFinished(() => repository.close());
  return repository;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs `action` and answers the ServiceError it throws. */
async function failure(action: () => Promise<unknown>) {
  try {
    await action();
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

describe('conversations', () => {
  it('creates a conversation with seeded messages in the wire shape the client reads', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'How do I retry?'), said('ASSISTANT', 'Use backoff.'));

    expect(conversation.id).toMatch(UUID);
    expect(conversation.type).toBe('COPILOT');
    expect(conversation.created).toEqual(conversation.updated);
    const [first, second] = conversation.messages.iterable;
    expect(first?.reference).toMatchObject({
      role: 'USER',
      conversation: { id: conversation.id },
      fragment: { string: { raw: 'How do I retry?' } },
    });
    expect(second?.reference?.fragment?.string?.raw).toBe('Use backoff.');
    expect(conversation.messages.indices).toEqual({ [first!.id]: 0, [second!.id]: 1 });
    for (const wrapper of [
      conversation.annotations,
      conversation.anchors,
      conversation.assets,
      conversation.websites,
      conversation.summaries,
      conversation.grounding.messages,
      conversation.grounding.temporal.workstreams,
    ]) {
      expect(wrapper.iterable).toEqual([]);
    }
  });

  it('gets a conversation, with or without transferable data', async () => {
    const { service } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', 'secret text'));

    const full = await service.getConversation(id);
    const light = await service.getConversation(id, { transferables: false });
    expect(full.messages.iterable[0]?.reference?.fragment?.string?.raw).toBe('secret text');
    expect(JSON.stringify(light)).not.toContain('secret text');
    expect(light.messages.iterable.map((m) => m.id)).toEqual(full.messages.iterable.map((m) => m.id));
    expect(light.messages.iterable[0]?.reference?.role).toBe('USER');
  });

  it('rejects an unknown id with NOT_FOUND and a malformed one with INVALID_INPUT', async () => {
    const { service } = await serviceForTest();
    expect(await failure(() => service.getConversation('no-such-id'))).toMatchObject({
      code: 'NOT_FOUND',
      details: { resource: 'conversation', id: 'no-such-id' },
    });
    expect((await failure(() => service.getConversation(''))).code).toBe('INVALID_INPUT');
    const { id } = await conversationWith(service);
    expect((await failure(() => service.getConversation(id, { transferables: 'yes' as never }))).code).toBe('INVALID_INPUT');
    // The cached reads check ids and options as every read does.
    for (const [bad, code] of [
      ['', 'INVALID_INPUT'],
      ['a\u0001b', 'INVALID_INPUT'],
      [42 as never, 'INVALID_INPUT'],
      ['x'.repeat(513), 'PAYLOAD_TOO_LARGE'],
    ] as const) {
      expect((await failure(() => service.getConversationJson(bad))).code).toBe(code);
      expect((await failure(() => service.listConversationMessagesJsonPieces(bad))).code).toBe(code);
    }
    expect((await failure(() => service.getConversationJson('x'.repeat(512)))).code).toBe('NOT_FOUND');
    for (const options of [{ transferables: 'yes' }, [], null, { limit: 0 }, { limit: 1.5 }, { offset: -1 }, { offset: '1' }] as never[]) {
      expect((await failure(() => service.listConversationMessagesJsonPieces(id, options))).code, JSON.stringify(options)).toBe(
        'INVALID_INPUT',
      );
    }
    for (const options of [{ transferables: 'yes' }, [], null] as never[]) {
      expect((await failure(() => service.getConversationJson(id, options))).code, JSON.stringify(options)).toBe('INVALID_INPUT');
    }
  });

  it('lists messages in order with their positions', async () => {
    const { service } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', 'one'), said('ASSISTANT', 'two'));
    const added = await service.createMessage({ role: 'USER', fragment: { string: { raw: 'three' } }, conversation: { id } });

    const messages = await service.listConversationMessages(id);
    expect(messages.iterable.map((m) => m.fragment?.string?.raw)).toEqual(['one', 'two', 'three']);
    expect(messages.indices[added.id]).toBe(2);
    const light = await service.listConversationMessages(id, { transferables: false });
    expect(light.iterable.every((m) => m.fragment?.string === undefined)).toBe(true);
  });

  it('refuses a message for a conversation that does not exist, and stores nothing', async () => {
    const { service } = await serviceForTest();
    const error = await failure(() =>
      service.createMessage({ role: 'USER', fragment: { string: { raw: 'x' } }, conversation: { id: 'ghost' } }),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect((await service.listConversations()).iterable).toEqual([]);
  });

  it('updates the mutable fields, bumps updated and keeps the rest', async () => {
    const { service } = await serviceForTest();
    const before = await conversationWith(service, said('USER', 'hello'));

    const after = await service.updateConversation({
      ...before,
      name: 'Renamed',
      favorited: true,
      type: 'UNKNOWN',
      created: { value: '1999-01-01T00:00:00.000Z' },
      messages: { iterable: [] },
    } as never);
    expect(after).toMatchObject({ name: 'Renamed', favorited: true, type: 'UNKNOWN' });
    expect(after.created).toEqual(before.created);
    expect(Date.parse(after.updated.value)).toBeGreaterThan(Date.parse(before.updated.value));
    expect(after.messages.iterable.map((m) => m.id)).toEqual(before.messages.iterable.map((m) => m.id));
    expect(await service.getConversation(before.id)).toEqual(after);

    const cleared = await service.updateConversation({ id: before.id, name: null });
    expect(cleared.name).toBeUndefined();
  });

  it('rejects an invalid update and changes nothing', async () => {
    const { service } = await serviceForTest();
    const before = await conversationWith(service);
    const error = await failure(() => service.updateConversation({ id: before.id, favorited: 'very' as never }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.issues?.[0]?.path).toEqual(['favorited']);
    expect(await service.getConversation(before.id)).toEqual(before);
    expect((await failure(() => service.updateConversation({ id: 'ghost', name: 'x' }))).code).toBe('NOT_FOUND');
    expect((await failure(() => service.updateConversation(undefined as never))).code).toBe('INVALID_INPUT');
  });

  it('hands out copies: changing an answer does not change the stored conversation', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'original'));
    conversation.name = 'changed locally';
    conversation.messages.iterable.pop();
    const again = await service.getConversation(conversation.id);
    expect(again.name).toBeUndefined();
    expect(again.messages.iterable).toHaveLength(1);
  });

  it('deletes a conversation with its messages and annotations', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'hello'));
    await service.summarizeConversation(conversation.id);
    await service.deleteConversation(conversation.id);

    expect((await failure(() => service.getConversation(conversation.id))).code).toBe('NOT_FOUND');
    expect((await service.listAnnotations()).iterable).toEqual([]);
    expect((await failure(() => service.deleteMessage(conversation.messages.iterable[0]!.id))).code).toBe('NOT_FOUND');
    expect((await failure(() => service.deleteConversation(conversation.id))).code).toBe('NOT_FOUND');
  });

  it('serializes a conversation exactly as getConversation answers it, and never serves a stale copy', async () => {
    const { service } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', 'first'));
    const same = async () => {
      for (const transferables of [true, false]) {
        expect(JSON.parse(await service.getConversationJson(id, { transferables }))).toEqual(
          await service.getConversation(id, { transferables }),
        );
      }
    };
    await same();
    await same(); // from the cache
    await service.updateConversation({ id, name: 'Renamed' });
    await same();
    await service.createMessage({ role: 'ASSISTANT', fragment: { string: { raw: 'second' } }, conversation: { id } });
    await same();
    await service.summarizeConversation(id);
    await same();
    const website = await service.createWebsite({ url: 'https://x.dev', name: 'x' });
    await service.associateWebsite(id, website.id);
    await same();
    await service.deleteMessage((await service.listConversationMessages(id)).iterable[0]!.id);
    await same();
    expect(JSON.parse(await service.getConversationJson(id))).toMatchObject({
      name: 'Renamed',
      websites: { iterable: [{ id: website.id }] },
    });
    await expect(service.getConversationJson('ghost')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never serves a stale copy of a conversation or a page of its messages after a message value, an annotation, a delete or a restore', async () => {
    const { service } = await serviceForTest();
    const { id, messages } = await conversationWith(service, said('USER', 'first'), said('ASSISTANT', 'second'));
    const reply = messages.iterable[1]!.id;
    const pages = [{}, { limit: 1 }, { offset: 1, limit: 1 }];
    const same = async () => {
      // Each read twice: the second from the cache.
      for (let i = 0; i < 2; i++) {
        expect(JSON.parse(await service.getConversationJson(id))).toEqual(await service.getConversation(id));
        expect(JSON.parse(jsonTextOf(await service.getConversationJsonPieces(id)))).toEqual(await service.getConversation(id));
        for (const page of pages) {
          const { text: json, next } = await service.listConversationMessagesJsonPieces(id, page);
          const expected = await service.listConversationMessages(id, page);
          expect(JSON.parse(jsonTextOf(json))).toEqual(expected);
          expect(next).toBe(expected.next);
        }
      }
    };
    await same();
    await service.updateMessageValue({ id: reply, fragment: { string: { raw: 'second, streamed further' } } });
    await same();
    expect(await service.getConversationJson(id)).toContain('second, streamed further');
    const note = await service.createAnnotation({ type: 'DESCRIPTION', text: 'a note', conversation: id });
    await same();
    await service.updateAnnotation({ id: note.id, text: 'a changed note' });
    await same();
    expect(await service.getConversationJson(id, { transferables: true })).toContain(note.id);
    await service.deleteAnnotation(note.id);
    await same();
    expect(await service.getConversationJson(id)).not.toContain(note.id);

    await service.deleteConversation(id);
    await expect(service.getConversationJson(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.listConversationMessagesJsonPieces(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers a conversation restored from the trash as restored, and a trashed one as gone, never from the cache', async () => {
    const { service } = await serviceForTest();
    const { id } = await conversationWith(service, said('USER', 'first'));
    const cached = async () => {
      for (let i = 0; i < 2; i++) await service.getConversationJson(id);
      await service.listConversationMessagesJsonPieces(id);
    };
    await cached();
    await service.deleteConversation(id);
    await expect(service.getConversationJson(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.listConversationMessagesJsonPieces(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const restored = await service.restoreConversation(id);
    for (let i = 0; i < 2; i++) {
      expect(JSON.parse(await service.getConversationJson(id))).toEqual(await service.getConversation(id));
      expect(JSON.parse(await service.getConversationJson(id)).messages).toEqual(JSON.parse(JSON.stringify(restored.messages)));
    }
    await service.updateConversation({ id, name: 'After the restore' });
    await cached();
    expect(JSON.parse(await service.getConversationJson(id)).name).toBe('After the restore');
    await service.deleteConversation(id);
    await expect(service.getConversationJson(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers a conversation put back whole (a restore) as restored, never as cached before its delete', async () => {
    const repository = await storeForTest();
    const { service } = await serviceForTest({ repository });
    const { id } = await conversationWith(service, said('USER', 'first'));
    // What a backup (or the trash) holds: the conversation and its messages as they are now.
    const saved = await repository.read(async (view) => {
      const conversation = (await view.get('conversations', id))!;
      return { conversation, messages: await view.getMany('messages', conversation.messages) };
    });
    await service.updateConversation({ id, name: 'Renamed after the backup' });
    await service.createMessage({ role: 'ASSISTANT', fragment: { string: { raw: 'after the backup' } }, conversation: { id } });
    for (let i = 0; i < 2; i++) await service.getConversationJson(id); // cached
    await service.listConversationMessagesJsonPieces(id);
    await service.deleteConversation(id);
    await repository.transact((tx) => {
      for (const message of saved.messages) tx.put('messages', message!);
      tx.put('conversations', saved.conversation);
    });
    for (let i = 0; i < 2; i++) {
      expect(JSON.parse(await service.getConversationJson(id))).toEqual(await service.getConversation(id));
      const restored = JSON.parse(await service.getConversationJson(id));
      expect(restored.name).toBe(saved.conversation.name);
      expect(restored.messages.iterable.map((m: { id: string }) => m.id)).toEqual(saved.conversation.messages);
      const page = await service.listConversationMessagesJsonPieces(id);
      expect(JSON.parse(Buffer.from(page.text as Uint8Array | string).toString())).toEqual(await service.listConversationMessages(id));
    }
  });
});
