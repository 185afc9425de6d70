/**
 * The trash: a deleted conversation is gone for the official client (404/410, absent from lists,
 * identifiers, search; streams say deleted) and comes back exactly with `restore`, links included
 * (a link to a record deleted meanwhile dropped on both sides); search and streams follow. Expiry
 * (by the service's clock), emptying, a trash of 0 days, and restores that must fail with a typed
 * error and change nothing. The client reaches the router in-process (its `fetchApi`). Run on the
 * memory store and, as every operation test, on the JSON-file store (TEST_STORE=json-file).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as client from '@pieces.app/pieces-os-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import {
  createJsonFileRepository,
  createMemoryRepository,
  isServiceError,
  type Repository,
  type Service,
  type ServiceOptions,
} from '../../src/index.js';
import { danglingIds } from '../helpers/links.js';
import { conversationWith, said, seeds, serviceForTest } from '../helpers/service.js';
import { DAY, linkedConversation, movableClock, START } from '../helpers/trash.js';

/**
 * Opens the store of a test: memory (the same one each time), or a JSON-file store in a folder of
 * its own (TEST_STORE=json-file), opened again at each call, closed and removed after the test.
 * Given to the service, so the test reads the trash through it.
 */
async function storeForTest(): Promise<() => Promise<Repository>> {
  if (process.env.TEST_STORE !== 'json-file') {
    const memory = createMemoryRepository();
    return async () => memory;
  }
  const folder = await mkdtemp(path.join(tmpdir(), 'cms-trash-'));
  const opened: Repository[] = [];
  onTestFinished(async () => {
    for (const repository of opened) await repository.close();
    await rm(folder, { recursive: true, force: true });
  });
  return async () => {
    const repository = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
    opened.push(repository);
    return repository;
  };
}

/** A service, its store, its router, and the official client's APIs reaching the router in-process. */
async function setUp(options: ServiceOptions = {}) {
  const time = movableClock();
  const repository = options.repository ?? (await (await storeForTest())());
  const { service } = await serviceForTest({ clock: time.clock, ...options, repository });
  const router = createHonoRouter(service);
  const configuration = new client.Configuration({
    basePath: 'http://127.0.0.1',
    fetchApi: (url: string | URL | Request, init?: RequestInit) => router.request(String(url), init),
  });
  const http = async (method: 'GET' | 'POST', path: string) => {
    const response = await router.request(`http://127.0.0.1${path}`, { method });
    const text = await response.text();
    return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
  };
  return {
    service,
    repository,
    time,
    http,
    conversationApi: new client.ConversationApi(configuration),
    conversationsApi: new client.ConversationsApi(configuration),
  };
}

type Context = Awaited<ReturnType<typeof setUp>>;

/** What the client reads of a conversation: the bytes of its GET and of its messages' page. */
async function clientView(context: Context, id: string) {
  const conversation = await context.conversationApi.conversationGetSpecificConversationRaw({ conversation: id });
  const messages = await context.conversationApi.conversationSpecificConversationMessagesRaw({ conversation: id });
  return { conversation: await conversation.raw.text(), messages: await messages.raw.text() };
}

/** The status the client's call failed with (it throws ResponseError on a 4xx). */
async function failedStatus(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof client.ResponseError) return error.response.status;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('the trash', () => {
  it('takes a deleted conversation out of every answer the client reads, and restore brings back the same bytes, links included', async () => {
    const context = await setUp();
    const { service, http, repository } = context;
    const linked = await linkedConversation(service);
    const before = await clientView(context, linked.id);
    const otherBefore = await clientView(context, linked.other);
    const search = { engines: { iterable: [{ query: 'tomatoes' }] } };
    expect((await service.searchConversations(search)).iterable.map((hit) => hit.identifier)).toEqual([linked.id]);

    await context.conversationsApi.conversationsDeleteSpecificConversation({ conversation: linked.id });
    // Gone for the client, as a delete always was.
    expect(await failedStatus(context.conversationApi.conversationGetSpecificConversation({ conversation: linked.id }))).toBe(410);
    expect(await failedStatus(context.conversationApi.conversationSpecificConversationMessages({ conversation: linked.id }))).toBe(404);
    expect((await context.conversationsApi.conversationsSnapshot({})).iterable.map((c) => c.id)).toEqual([linked.other]);
    expect((await context.conversationsApi.conversationsIdentifiersSnapshot()).iterable.map((c) => c.id)).toEqual([linked.other]);
    expect((await context.conversationsApi.searchConversations({ searchInput: search })).iterable).toEqual([]);
    expect((await service.searchMessages(search)).iterable).toEqual([]);
    // The records it linked to no longer name it: no id dangles while it is in the trash.
    expect((await service.getConversation(linked.other)).messages.iterable[0]).not.toHaveProperty('messages');
    expect(await danglingIds(repository)).toEqual([]);
    expect((await service.listTrash()).iterable).toEqual([
      {
        id: linked.id,
        name: 'Garden plans',
        deleted: { value: expect.any(String) },
        expires: { value: expect.any(String) },
        messages: 2,
      },
    ]);
    const [entry] = (await service.listTrash()).iterable;
    expect(Date.parse(entry!.expires.value) - Date.parse(entry!.deleted.value)).toBe(30 * DAY);

    const restored = await http('POST', `/conversations/${linked.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.json.id).toBe(linked.id);
    expect(await clientView(context, linked.id)).toEqual(before);
    // The other conversation's message names the restored one again (its `updated` says when).
    const otherAfter = await clientView(context, linked.other);
    expect(otherAfter.conversation.replace(/"updated":\{[^}]*\}/g, '')).toBe(otherBefore.conversation.replace(/"updated":\{[^}]*\}/g, ''));
    expect((await service.listTrash()).iterable).toEqual([]);
    expect(await danglingIds(repository)).toEqual([]);
    // Search finds it again, by its messages and by its own field.
    expect((await context.conversationsApi.searchConversations({ searchInput: search })).iterable.map((hit) => hit.identifier)).toEqual([
      linked.id,
    ]);
    expect((await service.searchMessages(search)).iterable.map((hit) => hit.identifier)).toEqual([linked.first]);
  });

  it('drops, on both sides, a link to a record deleted while the conversation was in the trash', async () => {
    const { service, repository } = await setUp();
    const linked = await linkedConversation(service);
    const kept = await service.createWebsite({ ...seeds.website, url: 'https://kept.example' });
    await service.associateWebsite(linked.id, kept.id);
    await service.deleteConversation(linked.id);
    await service.deleteWebsite(linked.website.id);
    await service.deleteTag(linked.tag.id);
    await service.deleteConversation(linked.other);

    const restored = await service.restoreConversation(linked.id);
    expect(restored.websites?.iterable.map((w) => w.id)).toEqual([kept.id]);
    expect(restored.grounding.messages.iterable).toEqual([]);
    const first = restored.messages.iterable.find((m) => m.id === linked.first)!;
    expect(first).not.toHaveProperty('tags');
    // The record that still exists names it back.
    expect((await service.listWebsites()).iterable.find((w) => w.id === kept.id)?.conversations?.iterable.map((c) => c.id)).toEqual([
      linked.id,
    ]);
    expect((await service.listPersons()).iterable[0]?.messages?.iterable.map((m) => m.id)).toEqual([linked.second]);
    expect(await danglingIds(repository)).toEqual([]);
  });

  it('streams the delete as deleted, and the restore as the conversation and its messages written', async () => {
    const { service } = await setUp();
    const conversation = await conversationWith(service, said('USER', 'Streamed'));
    const conversations = service.watch('conversations');
    const messages = service.watch('messages');
    await conversations.next();
    await messages.next();
    await service.deleteConversation(conversation.id);
    expect((await conversations.next()).value).toEqual({ iterable: [{ conversation: { id: conversation.id }, deleted: true }] });
    expect((await messages.next()).value).toEqual({
      iterable: [{ conversationMessage: { id: conversation.messages.iterable[0]!.id }, deleted: true }],
    });
    await service.restoreConversation(conversation.id);
    expect((await conversations.next()).value).toEqual({ iterable: [{ conversation: { id: conversation.id } }] });
    expect((await messages.next()).value).toEqual({ iterable: [{ conversationMessage: { id: conversation.messages.iterable[0]!.id } }] });
    await conversations.return();
    await messages.return();
  });

  it('refuses a restore of an id the trash does not hold, or of one a conversation has now, and changes nothing', async () => {
    const { service, http, repository } = await setUp();
    const conversation = await conversationWith(service, said('USER', 'Twice'));
    await expectCode(service.restoreConversation('nowhere'), 'NOT_FOUND');
    expect((await http('POST', '/conversations/nowhere/restore')).status).toBe(404);

    // A conversation of the same id exists again (copied back from elsewhere, say): the trash keeps its own.
    await service.deleteConversation(conversation.id);
    const trashed = await repository.read((view) => view.get('trash', conversation.id));
    await repository.transact((tx) => {
      tx.put('conversations', { ...trashed!.conversation, messages: [], name: 'Another' });
    });
    const before = await service.getConversation(conversation.id);
    await expectCode(service.restoreConversation(conversation.id), 'CONFLICT');
    const answer = await http('POST', `/conversations/${conversation.id}/restore`);
    expect(answer.status).toBe(409);
    expect(answer.json.error).toMatchObject({ code: 'CONFLICT', existingId: conversation.id });
    expect(await service.getConversation(conversation.id)).toEqual(before);
    expect((await service.listTrash()).iterable.map((entry) => entry.id)).toEqual([conversation.id]);
  });

  it('with keepDays 0, deletes at once and keeps nothing', async () => {
    const { service, repository } = await setUp({ trash: { keepDays: 0 } });
    const conversation = await conversationWith(service, said('USER', 'Gone for good'));
    await service.deleteConversation(conversation.id);
    expect(await repository.read((view) => view.count('trash'))).toBe(0);
    await expectCode(service.restoreConversation(conversation.id), 'NOT_FOUND');
    await expectCode(service.getConversation(conversation.id), 'NOT_FOUND');
  });

  it('refuses a keep that is not a number of days from 0 to a century', async () => {
    for (const keepDays of [-1, Number.NaN, 36_501, Number.POSITIVE_INFINITY]) {
      await expect(serviceForTest({ trash: { keepDays } })).rejects.toThrow(/trash.keepDays/);
    }
  });

  it('purges what expired by the clock, keeps the rest, and empties on demand (in-process and over HTTP)', async () => {
    const { service, time, http } = await setUp({ trash: { keepDays: 2 } });
    const old = await conversationWith(service, said('USER', 'Deleted first'));
    const recent = await conversationWith(service, said('USER', 'Deleted a day later'));
    await service.deleteConversation(old.id);
    time.advance(DAY);
    await service.deleteConversation(recent.id);
    expect((await service.listTrash()).iterable.map((entry) => entry.id)).toEqual([recent.id, old.id]);
    expect(await service.purgeExpiredTrash()).toEqual({ removed: 0 });
    time.advance(DAY);
    expect(await service.purgeExpiredTrash()).toEqual({ removed: 1 });
    expect((await http('GET', '/trash')).json.iterable.map((entry: { id: string }) => entry.id)).toEqual([recent.id]);
    await expectCode(service.restoreConversation(old.id), 'NOT_FOUND');

    const third = await conversationWith(service, said('USER', 'Third'));
    await service.deleteConversation(third.id);
    await service.purgeTrashed(third.id);
    await expectCode(service.purgeTrashed(third.id), 'NOT_FOUND');
    const emptied = await http('POST', '/trash/empty');
    expect(emptied).toMatchObject({ status: 200, json: { removed: 1 } });
    expect(await service.listTrash()).toEqual({ iterable: [] });
    expect(await service.emptyTrash()).toEqual({ removed: 0 });
  });

  it('purges in the background at start, in batches, and close() waits for it', async () => {
    // One store for two services: the first trashes, the second starts past their expiry.
    const open = await storeForTest();
    const first = await setUp({ repository: await open(), trash: { keepDays: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 70; i++) ids.push((await first.service.createConversation({ type: 'COPILOT' })).id);
    for (const id of ids) await first.service.deleteConversation(id);
    await first.service.close();

    let now = START + 3 * DAY;
    const second = await serviceForTest({ repository: await open(), clock: () => new Date((now += 1000)) });
    const deadline = Date.now() + 5_000;
    while ((await second.service.listTrash()).iterable.length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect((await second.service.listTrash()).iterable).toEqual([]);
    await second.service.close();
  });
});

async function expectCode(call: Promise<unknown>, code: string) {
  try {
    await call;
  } catch (error) {
    expect(isServiceError(error) && error.code).toBe(code);
    return;
  }
  throw new Error(`expected ${code}`);
}
