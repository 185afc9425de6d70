/**
 * `service.watch()`: a collection's ids as they change, in-process (what the WebSocket streams
 * send, for Electron and Node callers): every id first, then each create, update and delete in
 * order; changes of one id coalesced while the reader is away; a reader too far behind dropped
 * with TOO_SLOW and unsubscribed; `return()` and an abort unsubscribe.
 */
import { describe, expect, it } from 'vitest';
import { type ChangeBatch, createMemoryRepository, isServiceError, type Repository, type StreamedIdentifiers } from '../../src/index.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';
import { idsOf } from '../helpers/stream-client.js';

/** A memory store whose feed counts its subscribers: what a stream holds of the store. */
function countingRepository(): { repository: Repository; subscribers: () => number } {
  const inner = createMemoryRepository();
  let subscribers = 0;
  const repository: Repository = {
    read: (fn) => inner.read(fn),
    transact: (fn) => inner.transact(fn),
    close: () => inner.close(),
    ...(inner.search ? { search: inner.search } : {}),
    changes: {
      subscribe(listener: (batch: ChangeBatch) => void) {
        subscribers++;
        const stop = inner.changes!.subscribe(listener);
        let stopped = false;
        return () => {
          if (!stopped) subscribers--;
          stopped = true;
          stop();
        };
      },
      caughtUp: () => inner.changes!.caughtUp(),
    },
  };
  return { repository, subscribers: () => subscribers };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('service.watch()', () => {
  it('answers every id first, then a create, an update and a delete, in order', async () => {
    const { service } = await serviceForTest();
    const before = await conversationWith(service, said('USER', 'There before'));
    const stream = service.watch('conversations');
    expect(idsOf((await stream.next()).value!)).toEqual([before.id]);

    const created = await service.createConversation({ type: 'COPILOT' });
    expect(idsOf((await stream.next()).value!)).toEqual([created.id]);
    await service.updateConversation({ ...(await service.getConversation(created.id)), name: 'Renamed' });
    expect(idsOf((await stream.next()).value!)).toEqual([created.id]);
    await service.deleteConversation(created.id);
    expect((await stream.next()).value).toEqual({ iterable: [{ conversation: { id: created.id }, deleted: true }] });
    expect(await stream.return()).toEqual({ value: undefined, done: true });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('sends a conversation whose message changed in place (its value updated), since its answer shows the text', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'Draft'));
    const [message] = (await service.listConversationMessages(conversation.id)).iterable;
    const stream = service.watch('conversations');
    await stream.next();
    await service.updateMessageValue({ id: message!.id, fragment: { string: { raw: 'Edited' } } });
    expect(idsOf((await stream.next()).value!)).toEqual([conversation.id]);
    await stream.return();
  });

  it('streams messages in their own field, and their deletion with their conversation', async () => {
    const { service } = await serviceForTest();
    const stream = service.watch({ collection: 'messages' });
    expect((await stream.next()).value).toEqual({ iterable: [] });
    const conversation = await conversationWith(service, said('USER', 'One'), said('ASSISTANT', 'Two'));
    const messageIds = conversation.messages.iterable.map((item) => item.id);
    expect((await stream.next()).value!.iterable).toEqual(messageIds.map((id) => ({ conversationMessage: { id } })));
    await service.deleteConversation(conversation.id);
    expect(idsOf((await stream.next()).value!).sort()).toEqual(messageIds.map((id) => `-${id}`).sort());
    await stream.return();
  });

  it('coalesces the changes of one id made while the reader is away into one entry, as it is now', async () => {
    const { service } = await serviceForTest();
    const stream = service.watch('conversations');
    await stream.next();
    const a = await service.createConversation({ type: 'COPILOT' });
    const b = await service.createConversation({ type: 'COPILOT' });
    await service.updateConversation({ ...(await service.getConversation(a.id)), name: 'Again' });
    await service.deleteConversation(b.id);
    await turn();
    // b's last change was its deletion; a's its update, after b's creation.
    expect(idsOf((await stream.next()).value!)).toEqual([a.id, `-${b.id}`]);
    await stream.return();
  });

  it('drops a reader that falls more than maxPendingIds behind with TOO_SLOW, frees it, and unsubscribes', async () => {
    const { repository, subscribers } = countingRepository();
    const { service } = await serviceForTest({ repository });
    const slow = service.watch({ collection: 'conversations', maxPendingIds: 3 });
    const reading = service.watch('conversations');
    await slow.next();
    await reading.next();
    expect(subscribers()).toBe(1); // one subscription, shared by every stream
    const written: string[] = [];
    for (let i = 0; i < 5; i++) {
      written.push((await service.createConversation({ type: 'COPILOT' })).id);
      await turn();
    }
    const ended = await slow.ended;
    expect(isServiceError(ended) && ended.code).toBe('TOO_SLOW');
    await expect(slow.next()).rejects.toMatchObject({ code: 'TOO_SLOW', details: { limit: 3 } });
    expect(await slow.next()).toEqual({ value: undefined, done: true });
    // The other reader missed nothing.
    const seen: string[] = [];
    while (seen.length < written.length) seen.push(...idsOf((await reading.next()).value!));
    expect(seen).toEqual(written);
    await reading.return();
    expect(subscribers()).toBe(0);
  });

  it('takes one large batch whole when nothing waits, and ends on an abort', async () => {
    const { repository, subscribers } = countingRepository();
    const { service } = await serviceForTest({ repository });
    const controller = new AbortController();
    const stream = service.watch({ collection: 'messages', maxPendingIds: 2, signal: controller.signal });
    await stream.next();
    const conversation = await conversationWith(service, said('USER', 'a'), said('USER', 'b'), said('USER', 'c'));
    await turn();
    expect((await stream.next()).value!.iterable).toHaveLength(conversation.messages.iterable.length);
    const waiting = stream.next();
    controller.abort();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(subscribers()).toBe(0);
  });

  it('ends every stream when the service closes, and refuses what cannot be watched', async () => {
    const { service } = await serviceForTest();
    expect(() => service.watch('websites' as 'models')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => service.watch({ collection: 'models', maxPendingIds: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    const frames: StreamedIdentifiers[] = [];
    const stream = service.watch('models');
    const reader = (async () => {
      for await (const frame of stream) frames.push(frame);
    })();
    await turn();
    await service.close();
    await reader;
    expect(frames[0]!.iterable.length).toBeGreaterThan(0);
    expect(await stream.ended).toBeUndefined();
  });
});
