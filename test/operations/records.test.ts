import { describe, expect, it } from 'vitest';
import { conversationWith, seeds, serviceForTest } from '../helpers/service.js';

describe('records conversations link to', () => {
  it('creates each kind from the seeded shape the client sends, and lists it', async () => {
    const { service } = await serviceForTest();
    const anchor = await service.createAnchor(seeds.anchor);
    expect(anchor).toMatchObject({
      type: 'FILE',
      points: { iterable: [{ reference: { fullpath: seeds.anchor.fullpath } }] },
      conversations: { iterable: [] },
    });
    const asset = await service.createAsset(seeds.asset);
    expect(asset.formats.iterable[0]?.fragment?.string?.raw).toBe('const x = 1;');
    expect(asset.original.id).toBe(asset.formats.iterable[0]?.id);
    const website = await service.createWebsite(seeds.website);
    expect(website).toMatchObject({ url: seeds.website.url, name: 'Docs' });
    const range = await service.createRange(seeds.range);
    expect(range).toMatchObject({ between: true, from: seeds.range.from });
    const summary = await service.createWorkstreamSummary(seeds.workstreamSummary);
    expect(summary).toMatchObject({ name: 'Morning work', model: { id: 'some-model' } });
    const annotation = await service.createAnnotation(seeds.annotation);
    expect(annotation).toMatchObject({ type: 'COMMENT', text: 'Worth a look.' });

    expect((await service.listAnchors()).iterable).toEqual([anchor]);
    expect((await service.listAssets()).iterable).toEqual([asset]);
    expect((await service.listWebsites()).iterable).toEqual([website]);
    expect((await service.listRanges()).iterable).toEqual([range]);
    expect((await service.listWorkstreamSummaries()).iterable).toEqual([summary]);
    expect((await service.listAnnotations()).iterable).toEqual([annotation]);
  });

  it('leaves asset content out when transferables are not wanted', async () => {
    const { service } = await serviceForTest();
    await service.createAsset(seeds.asset);
    const { iterable } = await service.listAssets({ transferables: false });
    expect(JSON.stringify(iterable)).not.toContain('const x = 1;');
  });

  it('links a seeded record to the conversation it names', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    const website = await service.createWebsite({ ...seeds.website, conversation: conversation.id });
    const annotation = await service.createAnnotation({ ...seeds.annotation, conversation: conversation.id });
    const after = await service.getConversation(conversation.id);
    expect(after.websites.iterable).toEqual([{ id: website.id }]);
    expect(after.annotations.iterable.map((a) => a.id)).toEqual([annotation.id]);
    expect(website.conversations.iterable).toEqual([{ id: conversation.id }]);
    await expect(service.createAnchor({ ...seeds.anchor, conversation: 'ghost' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.listAnchors()).iterable).toEqual([]);
  });

  it('creates a conversation with seeded anchors and annotations linked both ways', async () => {
    const { service } = await serviceForTest();
    const conversation = await service.createConversation({ type: 'COPILOT', anchors: [seeds.anchor], annotations: [seeds.annotation] });
    const [anchor] = (await service.listAnchors()).iterable;
    expect(anchor?.conversations.iterable).toEqual([{ id: conversation.id }]);
    expect(conversation.anchors.iterable).toEqual([{ id: anchor!.id }]);
    expect(conversation.annotations.iterable[0]?.reference?.conversation).toEqual({ id: conversation.id });
  });

  it('rejects seeds without their required fields and stores nothing', async () => {
    const { service } = await serviceForTest();
    await expect(service.createAnchor({ type: 'FILE' } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: ['fullpath'] }] },
    });
    await expect(service.createWebsite({ url: 'https://x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.createAsset({ format: {} })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.createWorkstreamSummary({ name: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.createAnnotation({ text: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.createRange({ from: { value: 'not a date' } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // Date.parse would take "1" for a year; timestamps are ISO 8601 date-times.
    await expect(service.createRange({ from: { value: '1' } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: ['from', 'value'] }] },
    });
    await expect(service.createConversation({ type: 'CHAT' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await service.listAnchors()).iterable).toEqual([]);
    expect((await service.listConversations()).iterable).toEqual([]);
  });
});
