/**
 * The official client (`@pieces.app/pieces-os-client`, unmodified) drives the message, annotation,
 * conversation-start, prepare and score routes of the router, in this process (its `fetchApi` is
 * the router's `request`), over the memory store and over the JSON-file store. What a user relies
 * on: an edited or streamed message is found by its new text at once and no longer by its old; the
 * message and its conversation are read back changed (a cached answer is never served stale); bad
 * input is refused with a 4xx and changes nothing; increments sent together all count.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AnnotationApi,
  AnnotationsApi,
  AssetsApi,
  Configuration,
  ConversationApi,
  ConversationMessageApi,
  ConversationMessagesApi,
  ConversationsApi,
  ModelApi,
  ModelsApi,
  ResponseError,
  type SearchInput,
  WorkstreamSummariesApi,
} from '@pieces.app/pieces-os-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createJsonFileRepository, type Repository } from '../../src/index.js';
import { httpClient, stateOf } from '../helpers/http.js';
import { said, seededModel, seeds, serviceForTest } from '../helpers/service.js';

const STORES: readonly [string, () => Promise<Repository | undefined>][] = [
  ['memory', async () => undefined],
  [
    'JSON file',
    async () => {
      const folder = await mkdtemp(path.join(tmpdir(), 'cms-client-messages-'));
      const repository = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
      onTestFinished(() => rm(folder, { recursive: true, force: true }));
      return repository;
    },
  ],
];

/** A search of one full-text engine for `query`. */
const searchFor = (query: string): SearchInput => ({ engines: { iterable: [{ query }] } });

describe.each(STORES)('the client routes of messages and annotations, on the %s store', (_name, openStore) => {
  /** A service on a fresh store, its router, the client's API classes on it, and a raw HTTP client for the state. */
  async function setUp() {
    const repository = await openStore();
    const { service } = await serviceForTest(repository ? { repository } : {});
    onTestFinished(() => service.close());
    const router = createHonoRouter(service);
    const configuration = new Configuration({
      basePath: 'http://127.0.0.1',
      fetchApi: (url: string | URL | Request, init?: RequestInit) => Promise.resolve(router.request(String(url), init)),
    });
    return {
      service,
      http: httpClient(router),
      conversations: new ConversationsApi(configuration),
      conversation: new ConversationApi(configuration),
      messages: new ConversationMessagesApi(configuration),
      message: new ConversationMessageApi(configuration),
      annotations: new AnnotationsApi(configuration),
      annotation: new AnnotationApi(configuration),
      models: new ModelsApi(configuration),
      model: new ModelApi(configuration),
      assets: new AssetsApi(configuration),
      summaries: new WorkstreamSummariesApi(configuration),
    };
  }

  /** The status of the client's refusal of `call`. */
  async function statusOf(call: Promise<unknown>): Promise<number> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResponseError);
    return (error as ResponseError).response.status;
  }

  it('update/value: the message, its conversation and its page answer the new text, and search finds it and not the old', async () => {
    const c = await setUp();
    const created = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: {
        type: 'COPILOT',
        messages: [said('USER', 'How do I reverse a list?'), said('ASSISTANT', 'Use the aardvark method')] as never,
      },
    });
    const replyId = created.messages.iterable[1]!.id;
    // Read first, so the conversation's answers are cached before the edit.
    await c.conversation.conversationGetSpecificConversation({ conversation: created.id });
    await c.conversation.conversationSpecificConversationMessages({ conversation: created.id });
    expect((await c.messages.searchMessages({ searchInput: searchFor('aardvark') })).iterable.map((hit) => hit.identifier)).toEqual([
      replyId,
    ]);

    const reply = await c.message.messageSpecificMessageSnapshot({ message: replyId });
    expect(reply.fragment?.string?.raw).toBe('Use the aardvark method');
    // A reply that grows as a model streams it: the client sends the message it read, with the new fragment.
    const grown = await c.message.messageUpdateValue({
      conversationMessage: { ...reply, fragment: { string: { raw: 'Call reversed() on the zebra list' } } },
    });
    expect(grown.fragment?.string?.raw).toBe('Call reversed() on the zebra list');
    expect(grown.updated.value.getTime()).toBeGreaterThan(reply.updated.value.getTime());

    expect((await c.message.messageSpecificMessageSnapshot({ message: replyId })).fragment?.string?.raw).toBe(
      'Call reversed() on the zebra list',
    );
    const again = await c.conversation.conversationGetSpecificConversation({ conversation: created.id });
    const listed = await c.conversation.conversationSpecificConversationMessages({ conversation: created.id });
    for (const messages of [
      (await c.http.get(`/conversation/${created.id}`)).body.messages,
      { iterable: listed.iterable.map((m) => ({ id: m.id, raw: m.fragment?.string?.raw })) },
    ]) {
      expect(JSON.stringify(messages)).toContain('zebra');
      expect(JSON.stringify(messages)).not.toContain('aardvark');
    }
    expect(again.updated).toEqual(created.updated);
    expect((await c.messages.searchMessages({ searchInput: searchFor('zebra') })).iterable.map((hit) => hit.identifier)).toEqual([replyId]);
    expect((await c.messages.searchMessages({ searchInput: searchFor('aardvark') })).iterable).toEqual([]);
    const byConversation = await c.conversations.searchConversations({ searchInput: searchFor('zebra') });
    expect(byConversation.iterable.map((hit) => hit.identifier)).toEqual([created.id]);
  });

  it('update: applies sentiment, role and deleted, clears with null, and ignores links and the conversation', async () => {
    const c = await setUp();
    const created = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'hello there')] as never },
    });
    const id = created.messages.iterable[0]!.id;
    const read = await c.message.messageSpecificMessageSnapshot({ message: id });
    const liked = await c.message.messageSpecificMessageUpdate({
      conversationMessage: { ...read, sentiment: 'LIKE', role: 'SYSTEM', conversation: { id: 'elsewhere' } } as never,
    });
    expect(liked).toMatchObject({ sentiment: 'LIKE', role: 'SYSTEM', conversation: { id: created.id } });
    expect(liked.fragment?.string?.raw).toBe('hello there');
    // `null` clears: sent raw, since the client's model drops what is undefined.
    const cleared = await c.http.postJson('/message/update', { id, sentiment: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.sentiment).toBeUndefined();
    expect((await c.message.messageSpecificMessageSnapshot({ message: id })).sentiment).toBeUndefined();
    // Without transferables, the text is left out.
    const bare = await c.message.messageSpecificMessageSnapshot({ message: id, transferables: false });
    expect(bare.fragment?.string).toBeUndefined();
  });

  it('refuses bad input with a 4xx and changes nothing', async () => {
    const c = await setUp();
    const created = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'keep me as I am')] as never },
    });
    const id = created.messages.iterable[0]!.id;
    const annotation = await c.annotations.annotationsCreateNewAnnotation({
      seededAnnotation: { ...seeds.annotation, conversation: created.id } as never,
    });
    const before = await stateOf(c.http);
    const refusals: [string, unknown, number][] = [
      ['/message/update/value', { id: 'no-such-message', fragment: { string: { raw: 'x' } } }, 404],
      ['/message/update/value', { id }, 400],
      ['/message/update/value', { id, fragment: { string: { raw: 'x' } }, sentimnet: 'LIKE' }, 400],
      ['/message/update/value', { id, fragment: { string: { raw: 7 } } }, 400],
      ['/message/update', { id, role: 'ROBOT' }, 400],
      ['/message/update', { fragment: { string: { raw: 'x' } } }, 400],
      ['/message/update', { id: 'no-such-message', sentiment: 'LIKE' }, 404],
      ['/annotation/update', { id: annotation.id, text: 42 }, 400],
      ['/annotation/update', { id: annotation.id, type: 'POEM' }, 400],
      ['/annotation/update', { id: 'no-such-annotation', text: 'x' }, 404],
      [`/message/${id}/scores/increment`, { conversationMessage: { reuse: 'yes' } }, 400],
      ['/message/no-such-message/scores/increment', { conversationMessage: { reuse: true } }, 404],
      [`/annotation/${annotation.id}/scores/increment`, { annotation: { nope: true } }, 400],
      ['/annotation/no-such-annotation/scores/increment', { annotation: { reuse: true } }, 404],
      ['/model/no-such-model/scores/increment', { model: { reuse: true } }, 404],
      ['/conversations/create/from_asset/no-such-asset', undefined, 404],
      ['/conversations/create/from_workstream_summary/no-such-summary', undefined, 404],
      ['/conversation/no-such-conversation/prepare', undefined, 404],
      ['/annotations/search', { engines: { iterable: [{ qeury: 'x' }] } }, 400],
    ];
    for (const [url, body, status] of refusals) {
      const answer = await c.http.postJson(url, body);
      expect({ url, body, status: answer.status }).toEqual({ url, body, status });
    }
    expect(await statusOf(c.message.messageSpecificMessageSnapshot({ message: 'no-such-message' }))).toBe(404);
    expect(await statusOf(c.annotation.annotationSpecificAnnotationSnapshot({ annotation: 'no-such-annotation' }))).toBe(404);
    expect(await statusOf(c.conversation.conversationSpecificConversationPrepare({ conversation: 'no-such-conversation' }))).toBe(404);
    expect((await c.http.get('/messages?limit=0')).status).toBe(400);
    expect(await stateOf(c.http)).toEqual(before);
    expect((await c.http.get('/messages')).body).toEqual((await c.http.get('/messages')).body);
  });

  it('GET /messages pages every conversation’s messages, with the summaries that cover each', async () => {
    const c = await setUp();
    const first = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'one'), said('ASSISTANT', 'two')] as never },
    });
    const second = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'three')] as never },
    });
    const { annotation } = await c.conversation.conversationSummarize({ conversation: first.id });
    const all = await c.messages.messagesSnapshot({});
    const ids = [...first.messages.iterable, ...second.messages.iterable].map((m) => m.id);
    expect(all.iterable.map((m) => m.id)).toEqual(ids);
    expect(all.indices).toEqual(Object.fromEntries(ids.map((id, i) => [id, i])));
    expect(all.iterable.map((m) => m.annotations?.iterable.map((a) => a.id) ?? [])).toEqual([[annotation.id], [annotation.id], []]);
    expect((await c.message.messageSpecificMessageSnapshot({ message: ids[0]! })).annotations?.iterable.map((a) => a.id)).toEqual([
      annotation.id,
    ]);
    const page = await c.http.get('/messages?limit=2&offset=1');
    expect(page.body.iterable.map((m: { id: string }) => m.id)).toEqual(ids.slice(1, 3));
    expect(page.body.next).toBeUndefined();
    expect((await c.http.get('/messages?limit=1')).body.next).toBe(1);
  });

  it('annotations: read one, edit its text (searched by it at once, the conversation answers it), search them', async () => {
    const c = await setUp();
    const created = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'talk about rivers')] as never },
    });
    const mine = await c.annotations.annotationsCreateNewAnnotation({
      seededAnnotation: { type: 'DESCRIPTION', text: 'About the walrus', conversation: created.id } as never,
    });
    const loose = await c.annotations.annotationsCreateNewAnnotation({
      seededAnnotation: { type: 'COMMENT', text: 'A walrus of no conversation' } as never,
    });
    expect(await c.annotation.annotationSpecificAnnotationSnapshot({ annotation: mine.id })).toMatchObject({
      id: mine.id,
      text: 'About the walrus',
      conversation: { id: created.id },
    });
    const found = await c.annotations.searchAnnotations({ searchInput: searchFor('walrus') });
    expect(found.iterable.map((hit) => hit.identifier).sort()).toEqual([mine.id, loose.id].sort());
    expect(found.iterable.find((hit) => hit.identifier === loose.id)?.annotation?.text).toBe('A walrus of no conversation');
    await c.conversation.conversationGetSpecificConversation({ conversation: created.id });

    const read = await c.annotation.annotationSpecificAnnotationSnapshot({ annotation: mine.id });
    const edited = await c.annotation.annotationUpdate({ annotation: { ...read, text: 'About the narwhal', favorited: true } });
    expect(edited).toMatchObject({ text: 'About the narwhal', favorited: true, type: 'DESCRIPTION' });
    expect((await c.annotations.searchAnnotations({ searchInput: searchFor('narwhal') })).iterable.map((hit) => hit.identifier)).toEqual([
      mine.id,
    ]);
    expect((await c.annotations.searchAnnotations({ searchInput: searchFor('walrus') })).iterable.map((hit) => hit.identifier)).toEqual([
      loose.id,
    ]);
    const conversation = await c.http.get(`/conversation/${created.id}`);
    expect(JSON.stringify(conversation.body.annotations)).toContain('About the narwhal');
    // Without transferables, the hits are ids and scores alone.
    const bare = await c.annotations.searchAnnotations({ searchInput: searchFor('narwhal'), transferables: false });
    expect(bare.iterable[0]?.annotation).toBeUndefined();
  });

  it('increments sent together all count: messages, annotations and custom models; a built-in model’s is taken, not counted', async () => {
    const c = await setUp();
    const created = await c.conversations.conversationsCreateSpecificConversation({
      seededConversation: { type: 'COPILOT', messages: [said('USER', 'score me')] as never },
    });
    const messageId = created.messages.iterable[0]!.id;
    const annotation = await c.annotations.annotationsCreateNewAnnotation({ seededAnnotation: seeds.annotation as never });
    // The client's model takes a Date where the JSON has its ISO text.
    const custom = await c.models.modelsCreateNewModel({ seededModel: { ...seededModel(), created: { value: new Date() } } as never });
    const builtIn = (await c.models.modelsSnapshot()).iterable.find((model) => !model.custom)!;
    const updatedBefore = (await c.message.messageSpecificMessageSnapshot({ message: messageId })).updated;
    const times = 20;
    await Promise.all(
      Array.from({ length: times }, () => [
        c.message.messageScoresIncrement({ message: messageId, seededScoreIncrement: { conversationMessage: { reuse: true } } }),
        c.annotation.annotationScoresIncrement({ annotation: annotation.id, seededScoreIncrement: { annotation: { searched: true } } }),
        c.model.modelScoresIncrement({ model: custom.id, seededScoreIncrement: { model: { reference: true } } }),
        c.model.modelScoresIncrement({ model: builtIn.id, seededScoreIncrement: { model: { reference: true } } }),
      ]).flat(),
    );
    const message = await c.message.messageSpecificMessageSnapshot({ message: messageId });
    expect(message.score).toMatchObject({ manual: 0, automatic: 0, reuse: times });
    expect(message.updated).toEqual(updatedBefore);
    expect((await c.annotation.annotationSpecificAnnotationSnapshot({ annotation: annotation.id })).score).toMatchObject({
      searched: times,
    });
    expect((await c.model.modelsSpecificModelSnapshot({ model: custom.id })).score).toMatchObject({ reference: times });
    expect((await c.model.modelsSpecificModelSnapshot({ model: builtIn.id })).score).toBeUndefined();
    // An increment for another record's key changes nothing here.
    await c.message.messageScoresIncrement({ message: messageId, seededScoreIncrement: { annotation: { reuse: true } } });
    expect((await c.message.messageSpecificMessageSnapshot({ message: messageId })).score).toEqual(message.score);
  });

  it('starts conversations from an asset and a workstream summary, linked both ways; lists ids; prepares', async () => {
    const c = await setUp();
    const asset = await c.assets.assetsCreateNewAsset({
      seed: { type: 'SEEDED_ASSET', asset: { ...seeds.asset, metadata: { name: 'reverse.ts' } } } as never,
    });
    const summary = await c.summaries.workstreamSummariesCreateNewWorkstreamSummary({
      seededWorkstreamSummary: seeds.workstreamSummary as never,
    });
    const fromAsset = await c.conversations.conversationsCreateFromAsset({ asset: asset.id });
    const fromSummary = await c.conversations.conversationsCreateFromWorkstreamSummary({ workstreamSummary: summary.id });
    const a = await c.conversation.conversationGetSpecificConversation({ conversation: fromAsset.conversation.id });
    expect(a).toMatchObject({ name: 'reverse.ts', type: 'COPILOT' });
    expect(a.assets?.iterable?.map((x) => x.id)).toEqual([asset.id]);
    expect(a.messages.iterable).toEqual([]);
    expect((await c.http.get('/assets')).body.iterable[0].conversations.iterable.map((x: { id: string }) => x.id)).toEqual([
      fromAsset.conversation.id,
    ]);
    const s = await c.conversation.conversationGetSpecificConversation({ conversation: fromSummary.conversation.id });
    expect(s).toMatchObject({ name: seeds.workstreamSummary.name });
    expect(s.summaries?.iterable?.map((x) => x.id)).toEqual([summary.id]);
    expect((await c.http.get('/workstream_summaries')).body.iterable[0].conversations.iterable.map((x: { id: string }) => x.id)).toEqual([
      fromSummary.conversation.id,
    ]);

    const ids = await c.conversations.conversationsIdentifiersSnapshot();
    expect(ids.iterable.map((x) => x.id)).toEqual([fromAsset.conversation.id, fromSummary.conversation.id]);

    const before = await stateOf(c.http);
    await c.conversation.conversationSpecificConversationPrepare({ conversation: fromAsset.conversation.id });
    expect(await stateOf(c.http)).toEqual(before);
  });
});
