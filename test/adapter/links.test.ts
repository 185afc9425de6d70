import { describe, expect, it } from 'vitest';
import { LINK_ROUTES } from '../../adapters/hono/routes.js';
import { LINK_KINDS, type LinkKind } from '../../src/index.js';
import { expectError, expectJson, expectNoContent, type HttpClient, path, routerForTest, stateOf } from '../helpers/http.js';
import { conversationWith, said, seeds } from '../helpers/service.js';

/**
 * For each link kind: how to make a record of that kind over HTTP, where the conversation lists
 * it, and where the record lists its conversations. Typed by LinkKind, so a new kind does not
 * compile until it is described here, and then every test below covers it.
 */
const TARGETS: Record<
  LinkKind,
  {
    create(http: HttpClient): Promise<string>;
    linkedFrom(conversation: any): { iterable: { id: string }[] };
    /** The record's `conversations` ids, or null where the API shows the link on the conversation only. */
    conversationsOf(http: HttpClient, id: string): Promise<string[] | null>;
  }
> = {
  anchor: {
    create: (http) => createRecord(http, 'anchors', seeds.anchor),
    linkedFrom: (c) => c.anchors,
    conversationsOf: (http, id) => conversationsListedBy(http, 'anchors', id),
  },
  asset: {
    create: (http) => createRecord(http, 'assets', seeds.asset),
    linkedFrom: (c) => c.assets,
    conversationsOf: (http, id) => conversationsListedBy(http, 'assets', id),
  },
  website: {
    create: (http) => createRecord(http, 'websites', seeds.website),
    linkedFrom: (c) => c.websites,
    conversationsOf: (http, id) => conversationsListedBy(http, 'websites', id),
  },
  workstreamSummary: {
    create: (http) => createRecord(http, 'workstream_summaries', seeds.workstreamSummary),
    linkedFrom: (c) => c.summaries,
    conversationsOf: (http, id) => conversationsListedBy(http, 'workstream_summaries', id),
  },
  groundingRange: {
    create: (http) => createRecord(http, 'ranges', seeds.range),
    linkedFrom: (c) => c.grounding.temporal.workstreams,
    conversationsOf: (http, id) => conversationsListedBy(http, 'ranges', id),
  },
  groundingMessage: {
    create: async (http) => {
      const other = expectJson(await http.postJson('/conversations/create', { type: 'COPILOT', messages: [said('USER', 'context')] }));
      return other.messages.iterable[0].id;
    },
    linkedFrom: (c) => c.grounding.messages,
    // A ConversationMessage has no list of the conversations it grounds.
    conversationsOf: async () => null,
  },
};

async function createRecord(http: HttpClient, collection: string, seed: unknown): Promise<string> {
  return expectJson(await http.postJson(`/${collection}/create`, seed)).id;
}

async function conversationsListedBy(http: HttpClient, collection: string, id: string): Promise<string[]> {
  const record = expectJson(await http.get(`/${collection}`)).iterable.find((r: { id: string }) => r.id === id);
  expect(record, `${collection} lists ${id}`).toBeDefined();
  return record.conversations.iterable.map((c: { id: string }) => c.id);
}

const KINDS = Object.keys(LINK_KINDS) as LinkKind[];

/** Both sides of one link, read over HTTP. */
async function sidesOf(http: HttpClient, kind: LinkKind, conversationId: string, targetId: string) {
  const conversation = expectJson(await http.get(path`/conversation/${conversationId}`));
  return {
    conversationLists: TARGETS[kind].linkedFrom(conversation).iterable.map((item) => item.id),
    targetLists: await TARGETS[kind].conversationsOf(http, targetId),
  };
}

async function setUp(kind: LinkKind) {
  const context = await routerForTest();
  const conversation = await conversationWith(context.service, said('USER', 'let us link things'));
  const targetId = await TARGETS[kind].create(context.http);
  return { ...context, conversation, targetId };
}

describe('link routes', () => {
  it("serve every path of the spec and the newer client's spellings", () => {
    const served = KINDS.flatMap((kind) => {
      const route = LINK_ROUTES[kind];
      return [...Object.keys(route.associate), ...Object.keys(route.disassociate)].map((verb) => `${route.path}/${verb}`);
    });
    expect(served).toEqual(
      expect.arrayContaining([
        'anchors/associate',
        'anchors/delete',
        'anchors/disassociate',
        'assets/associate',
        'assets/delete',
        'assets/disassociate',
        'grounding/temporal_range/workstreams/associate',
        'grounding/temporal_range/workstreams/disassociate',
        'websites/associate',
        'websites/disassociate',
        'workstream_summaries/associate',
        'workstream_summaries/disassociate',
        'grounding/messages/associate',
        'grounding/messages/disassociate',
      ]),
    );
  });

  it('have a route entry with both verbs for every link kind', () => {
    for (const kind of KINDS) {
      expect(Object.keys(LINK_ROUTES[kind].associate).length, kind).toBeGreaterThan(0);
      expect(Object.keys(LINK_ROUTES[kind].disassociate).length, kind).toBeGreaterThan(0);
    }
  });
});

describe.each(KINDS)('links of kind %s', (kind) => {
  const route = LINK_ROUTES[kind];
  const url = (verb: string, conversation: string, target: string) =>
    `${path`/conversation/${conversation}`}/${route.path}/${verb}${path`/${target}`}`;

  it.each(Object.keys(route.associate))(
    `POST /conversation/{c}/${route.path}/%s/{target} answers 204 and links both records`,
    async (verb) => {
      const { http, conversation, targetId } = await setUp(kind);
      expectNoContent(await http.post(url(verb, conversation.id, targetId)));
      const sides = await sidesOf(http, kind, conversation.id, targetId);
      expect(sides.conversationLists).toEqual([targetId]);
      if (sides.targetLists !== null) expect(sides.targetLists).toEqual([conversation.id]);

      // Associating again answers 204 and links once.
      expectNoContent(await http.post(url(verb, conversation.id, targetId)));
      expect(await sidesOf(http, kind, conversation.id, targetId)).toEqual(sides);
    },
  );

  it.each(Object.keys(route.disassociate))(
    `POST /conversation/{c}/${route.path}/%s/{target} answers 204 and unlinks both records`,
    async (verb) => {
      const { http, service, conversation, targetId } = await setUp(kind);
      await service.associate(kind, conversation.id, targetId);
      const linked = await sidesOf(http, kind, conversation.id, targetId);
      expect(linked.conversationLists).toEqual([targetId]);

      expectNoContent(await http.post(url(verb, conversation.id, targetId)));
      const sides = await sidesOf(http, kind, conversation.id, targetId);
      expect(sides.conversationLists).toEqual([]);
      if (sides.targetLists !== null) expect(sides.targetLists).toEqual([]);

      // Disassociating again is harmless.
      expectNoContent(await http.post(url(verb, conversation.id, targetId)));
    },
  );

  const verbs = [...Object.keys(route.associate), ...Object.keys(route.disassociate)];

  it.each(verbs)('%s answers 404 naming an unknown conversation, and changes nothing', async (verb) => {
    const { http, targetId } = await setUp(kind);
    const before = await stateOf(http);
    const error = expectError(await http.post(url(verb, 'ghost', targetId)), 404, 'NOT_FOUND');
    expect(error).toMatchObject({ resource: 'conversation', id: 'ghost' });
    expect(await stateOf(http)).toEqual(before);
  });

  it.each(verbs)(`%s answers 404 naming an unknown ${LINK_KINDS[kind].resource}, and changes nothing`, async (verb) => {
    const { http, conversation } = await setUp(kind);
    const before = await stateOf(http);
    const error = expectError(await http.post(url(verb, conversation.id, 'ghost')), 404, 'NOT_FOUND');
    expect(error).toMatchObject({ resource: LINK_KINDS[kind].resource, id: 'ghost' });
    expect(await stateOf(http)).toEqual(before);
  });

  it.each(verbs)('%s decodes the ids of its path', async (verb) => {
    const { http, conversation } = await setUp(kind);
    const error = expectError(await http.post(url(verb, conversation.id, 'a/b c')), 404, 'NOT_FOUND');
    expect(error.id).toBe('a/b c');
    const other = expectError(await http.post(url(verb, 'x/y?z', 'a/b c')), 404, 'NOT_FOUND');
    expect(other).toMatchObject({ resource: 'conversation', id: 'x/y?z' });
  });
});
