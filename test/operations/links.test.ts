import { describe, expect, it } from 'vitest';
import { isServiceError, LINK_KINDS, type LinkKind, type Service } from '../../src/index.js';
import { conversationWith, said, seeds, serviceForTest } from '../helpers/service.js';

/** How to make a record of each kind, and where its side of the link shows. */
const targets: Record<
  LinkKind,
  { create(service: Service): Promise<string>; conversationsOf(service: Service, id: string): Promise<string[] | undefined> }
> = {
  anchor: {
    create: async (s) => (await s.createAnchor(seeds.anchor)).id,
    conversationsOf: async (s, id) => (await s.listAnchors()).iterable.find((r) => r.id === id)?.conversations.iterable.map((c) => c.id),
  },
  asset: {
    create: async (s) => (await s.createAsset(seeds.asset)).id,
    conversationsOf: async (s, id) => (await s.listAssets()).iterable.find((r) => r.id === id)?.conversations.iterable.map((c) => c.id),
  },
  website: {
    create: async (s) => (await s.createWebsite(seeds.website)).id,
    conversationsOf: async (s, id) => (await s.listWebsites()).iterable.find((r) => r.id === id)?.conversations.iterable.map((c) => c.id),
  },
  workstreamSummary: {
    create: async (s) => (await s.createWorkstreamSummary(seeds.workstreamSummary)).id,
    conversationsOf: async (s, id) =>
      (await s.listWorkstreamSummaries()).iterable.find((r) => r.id === id)?.conversations.iterable.map((c) => c.id),
  },
  groundingRange: {
    create: async (s) => (await s.createRange(seeds.range)).id,
    conversationsOf: async (s, id) => (await s.listRanges()).iterable.find((r) => r.id === id)?.conversations.iterable.map((c) => c.id),
  },
  groundingMessage: {
    create: async (s) => (await conversationWith(s, said('USER', 'context from elsewhere'))).messages.iterable[0]!.id,
    // The API keeps this link on the conversation only; the message side is internal.
    conversationsOf: async () => undefined,
  },
};

/** The ids the conversation lists for a link kind. */
async function linkedIds(service: Service, conversationId: string, kind: LinkKind): Promise<string[]> {
  const c = await service.getConversation(conversationId);
  const wrapper = {
    anchor: c.anchors,
    asset: c.assets,
    website: c.websites,
    workstreamSummary: c.summaries,
    groundingRange: c.grounding.temporal.workstreams,
    groundingMessage: c.grounding.messages,
  }[kind];
  return wrapper.iterable.map((item) => item.id);
}

describe.each(Object.keys(LINK_KINDS) as LinkKind[])('links: %s', (kind) => {
  const target = targets[kind];

  it('associates both records, and associating again changes nothing', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    const targetId = await target.create(service);

    await service.associate(kind, conversation.id, targetId);
    const linked = await service.getConversation(conversation.id);
    expect(await linkedIds(service, conversation.id, kind)).toEqual([targetId]);
    expect(Date.parse(linked.updated.value)).toBeGreaterThan(Date.parse(conversation.updated.value));
    const sideOfTarget = await target.conversationsOf(service, targetId);
    if (sideOfTarget) expect(sideOfTarget).toEqual([conversation.id]);

    await service.associate(kind, conversation.id, targetId);
    expect(await service.getConversation(conversation.id)).toEqual(linked);
  });

  it('disassociates both records, and disassociating again is harmless', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    const targetId = await target.create(service);
    const suffix = kind[0]!.toUpperCase() + kind.slice(1);
    await (service as unknown as Record<string, (c: string, t: string) => Promise<void>>)[`associate${suffix}`]!(conversation.id, targetId);

    await (service as unknown as Record<string, (c: string, t: string) => Promise<void>>)[`disassociate${suffix}`]!(
      conversation.id,
      targetId,
    );
    expect(await linkedIds(service, conversation.id, kind)).toEqual([]);
    const sideOfTarget = await target.conversationsOf(service, targetId);
    if (sideOfTarget) expect(sideOfTarget).toEqual([]);
    await service.disassociate(kind, conversation.id, targetId);
  });

  it('refuses unknown ids with NOT_FOUND and changes nothing', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    const targetId = await target.create(service);

    await expect(service.associate(kind, conversation.id, 'ghost')).rejects.toSatisfy(
      (e) => isServiceError(e) && e.code === 'NOT_FOUND' && e.details.id === 'ghost',
    );
    await expect(service.associate(kind, 'ghost', targetId)).rejects.toSatisfy(
      (e) => isServiceError(e) && e.code === 'NOT_FOUND' && e.details.resource === 'conversation',
    );
    await expect(service.disassociate(kind, 'ghost', targetId)).rejects.toSatisfy((e) => isServiceError(e) && e.code === 'NOT_FOUND');
    expect(await service.getConversation(conversation.id)).toEqual(conversation);
    const sideOfTarget = await target.conversationsOf(service, targetId);
    if (sideOfTarget) expect(sideOfTarget).toEqual([]);
  });

  it('leaves no dangling id when either record is deleted', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    const other = await conversationWith(service);
    const targetId = await target.create(service);
    await service.associate(kind, conversation.id, targetId);
    await service.associate(kind, other.id, targetId);

    await service.deleteConversation(other.id);
    const sideOfTarget = await target.conversationsOf(service, targetId);
    if (sideOfTarget) expect(sideOfTarget).toEqual([conversation.id]);

    const remove = {
      anchor: service.deleteAnchor,
      asset: service.deleteAsset,
      website: service.deleteWebsite,
      workstreamSummary: service.deleteWorkstreamSummary,
      groundingRange: service.deleteRange,
      groundingMessage: service.deleteMessage,
    }[kind];
    await remove(targetId);
    expect(await linkedIds(service, conversation.id, kind)).toEqual([]);
  });
});

describe('link kinds', () => {
  it('refuses a kind that is not in the table with INVALID_INPUT', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(service);
    for (const kind of ['__proto__', 'toString', 'annotation']) {
      await expect(service.associate(kind as LinkKind, conversation.id, 'x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
  });
});

describe('grounding messages', () => {
  it('cleans every grounded conversation when the message goes with its own conversation', async () => {
    const { service } = await serviceForTest();
    const source = await conversationWith(service, said('USER', 'the source'));
    const grounded = await conversationWith(service);
    await service.associateGroundingMessage(grounded.id, source.messages.iterable[0]!.id);
    await service.deleteConversation(source.id);
    expect((await service.getConversation(grounded.id)).grounding.messages.iterable).toEqual([]);
  });
});
