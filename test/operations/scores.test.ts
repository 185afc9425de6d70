import { describe, expect, it } from 'vitest';
import { conversationWith, serviceForTest } from '../helpers/service.js';

describe('scores', () => {
  it('increments the conversation score fields named true, starting from zero', async () => {
    const { service } = await serviceForTest();
    const { id, updated } = await conversationWith(service);

    await service.incrementConversationScores(id, { conversation: { reuse: true, searched: true, update: false } });
    await service.incrementConversationScores(id, { conversation: { reuse: true } });
    const conversation = await service.getConversation(id);
    expect(conversation.score).toEqual({ manual: 0, automatic: 0, reuse: 2, searched: 1 });
    expect(conversation.updated).toEqual(updated);
  });

  it('accepts no body and the keys of other records, changing nothing', async () => {
    const { service } = await serviceForTest();
    const before = await conversationWith(service);
    await service.incrementConversationScores(before.id);
    await service.incrementConversationScores(before.id, { asset: { reuse: true }, workstream_summary: { update: true } });
    expect(await service.getConversation(before.id)).toEqual(before);
  });

  it('rejects a malformed increment or unknown conversation and changes nothing', async () => {
    const { service } = await serviceForTest();
    const before = await conversationWith(service);
    await expect(service.incrementConversationScores(before.id, { conversation: { reuse: 3 } } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(service.incrementConversationScores(before.id, [] as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.incrementConversationScores('ghost', { conversation: { reuse: true } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await service.getConversation(before.id)).toEqual(before);
  });
});
