import { z } from 'zod';
import { notFound } from '../errors.js';
import { deepFreeze } from '../frozen.js';
import { emptyConversation } from '../kinds/conversation.js';
import { LIMITS } from '../limits.js';
import type { AnchorRecord, AnnotationRecord, ConversationRecord, MessageRecord } from '../records.js';
import { deleteRecord } from '../relations.js';
import {
  ConversationSnapshot,
  conversationSnapshot,
  pageIndices,
  renderConversationInSlices,
  renderMessagesInSlices,
} from '../render/conversation.js';
import { conversationJson, conversationMessagesJson } from '../render/conversation-json.js';
import { type CachedJson, readStamps } from '../render/json-cache.js';
import { jsonChunks } from '../render/json-chunks.js';
import { boundedArray } from '../schemas/common.js';
import { conversationUpdateSchema } from '../schemas/conversation-inputs.js';
import { seededConversationSchema, seededMessageSchema } from '../schemas/seeds.js';
import { joinInSlices, parseInSlices, Slices } from '../slices.js';
import { parseInput } from '../validate.js';
import type { Conversation, ConversationMessages, ListOf } from '../wire.js';
import { type ListOptions, mustGet, type OperationContext, pageOptions, parseId, type ReadOptions, renderOptions } from './context.js';
import { withChanges } from './field-changes.js';
import { RECORD_KINDS } from './record-kinds.js';
import { trashRecordOf } from './trash-record.js';

/**
 * Creates a conversation, with the messages, anchors and annotations it is seeded with. Messages
 * are checked, built and frozen a slice at a time (see {@link parseInSlices}), so a create of
 * thousands costs other clients milliseconds, not the whole create; the transaction only stores them.
 */
export async function createConversation(ctx: OperationContext, seed: unknown, options?: ReadOptions): Promise<Conversation> {
  const slices = new Slices();
  const input = parseInput(conversationHeadSchema, seed, 'SeededConversation');
  const render = renderOptions(options);
  const now = ctx.now();
  const id = ctx.newId();
  // Seeded records are built as their own create operations build them, then tied to this conversation.
  const context = () => ({ id: ctx.newId(), now, newId: () => ctx.newId() });
  const messages: MessageRecord[] = await parseInSlices(
    seededMessageSchema,
    input.messages ?? [],
    'SeededConversation',
    ['messages'],
    (seed) =>
      // Frozen now, in its slice, so storing it later costs no copy.
      deepFreeze({ ...RECORD_KINDS.messages.build({ ...seed, conversation: { id } }, context()), conversation: id }),
    slices,
  );
  // Frozen too, so that storing the conversation shares the list instead of copying it.
  const messageIds = Object.freeze(messages.map((m) => m.id));
  const anchors: AnchorRecord[] = (input.anchors ?? []).map((seed) => ({
    ...RECORD_KINDS.anchors.build(seed, context()),
    conversations: [id],
  }));
  const annotations: AnnotationRecord[] = (input.annotations ?? []).map((seed) => ({
    ...RECORD_KINDS.annotations.build(seed, context()),
    conversation: id,
  }));
  // The transaction is long for thousands of messages: it starts a slice of its own.
  if (slices.due) await slices.next();
  const stored = await ctx.repository.transact(async (tx) => {
    const { messages: _m, anchors: _a, annotations: _n, ...fields } = input;
    const conversation: ConversationRecord = {
      ...emptyConversation(id, now, fields),
      messages: messageIds,
      annotations: annotations.map((a) => a.id),
      anchors: anchors.map((a) => a.id),
    };
    for (const message of messages) tx.put('messages', message);
    for (const anchor of anchors) tx.put('anchors', anchor);
    for (const annotation of annotations) tx.put('annotations', annotation);
    tx.put('conversations', conversation);
    // Its messages and annotations are the records just built: nothing to look up again.
    return new ConversationSnapshot(conversation, messages, new Map(annotations.map((a) => [a.id, deepFreeze(a)])));
  });
  return renderConversationInSlices(stored, render);
}

/** A SeededConversation whose messages are only counted here: they are checked in slices. */
const conversationHeadSchema = seededConversationSchema.extend({
  messages: boundedArray(z.unknown(), LIMITS.messagesPerCreate).optional(),
});

/** The conversations, oldest first, a page at a time (see {@link ListOptions}). */
export async function listConversations(ctx: OperationContext, options?: ListOptions): Promise<ListOf<Conversation>> {
  const page = pageOptions(options);
  const stored = await ctx.repository.read(async (view) => {
    const { records, next } = await view.list('conversations', { offset: page.offset, limit: page.limit });
    const snapshots: ConversationSnapshot[] = [];
    for (const record of records) snapshots.push(await conversationSnapshot(view, record));
    return { snapshots, next };
  });
  const iterable: Conversation[] = [];
  for (const snapshot of stored.snapshots) iterable.push(await renderConversationInSlices(snapshot, page));
  return stored.next === undefined ? { iterable } : { iterable, next: page.offset + iterable.length };
}

export async function getConversation(ctx: OperationContext, conversationId: string, options?: ReadOptions): Promise<Conversation> {
  const id = parseId(conversationId, 'conversation id');
  const render = renderOptions(options);
  const snapshot = await ctx.repository.read(async (view) =>
    conversationSnapshot(view, await mustGet(view, 'conversations', id, 'conversation')),
  );
  return renderConversationInSlices(snapshot, render);
}

/**
 * The answer of getConversation, serialized: what a transport sends. Served from a cache while the
 * conversation, its messages and its annotations are unchanged. A conversation of more than
 * {@link SLICED_RENDER_MESSAGES} messages is serialized a slice at a time instead (and not cached),
 * so that reading it does not stall other clients.
 */
export async function getConversationJson(ctx: OperationContext, conversationId: string, options?: ReadOptions): Promise<string> {
  const json = await getConversationJsonPieces(ctx, conversationId, options);
  if (typeof json === 'string') return json;
  return json instanceof Uint8Array ? Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8') : joinInSlices(json);
}

/**
 * {@link getConversationJson}'s text: as UTF-8 bytes when it comes from the cache (what a
 * transport sends as it is), or for a long conversation the pieces that joined are that text,
 * serialized as they are taken: a transport can send them one at a time, without a string of the
 * whole answer (megabytes, which take long to build and to encode in one go).
 */
export async function getConversationJsonPieces(
  ctx: OperationContext,
  conversationId: string,
  options?: ReadOptions,
): Promise<string | Uint8Array | Iterable<string>> {
  const id = parseId(conversationId, 'conversation id');
  const render = renderOptions(options);
  const rendering = render.transferables ? 't' : 'f';
  // With a store whose feed tells of every write (one process), a hit reads nothing.
  const peeked = ctx.conversationJson.peek(id, rendering);
  if (peeked !== undefined) return peeked.bytes;
  const cache = ctx.conversationJson.begin(id);
  try {
    const answer = await ctx.repository.read(async (view) => {
      const cached = await ctx.conversationJson.get(view, id, rendering);
      if (cached !== undefined) return cached.bytes;
      const stamps = await readStamps(view, id);
      if (!stamps) throw notFound('conversation', id);
      const snapshot = await conversationSnapshot(view, stamps.conversation);
      if (stamps.conversation.messages.length > SLICED_RENDER_MESSAGES) return snapshot;
      const json = conversationJson(snapshot, render);
      // An answer that left damaged messages out is not kept: each read tries them again. One
      // kept is answered as the bytes it is kept as, encoded once.
      return (snapshot.skipped.length === 0 && ctx.conversationJson.set(stamps, rendering, { json }, cache)) || json;
    });
    if (!(answer instanceof ConversationSnapshot)) return answer;
    return jsonChunks(await renderConversationInSlices(answer, render));
  } finally {
    ctx.conversationJson.end(cache);
  }
}

/** A serialized answer as a transport sends it: one string, UTF-8 bytes, or pieces that joined are the text; and a page's `next`. */
export interface JsonPage {
  /** The JSON text; as UTF-8 bytes when it comes from the cache (see {@link getConversationJsonPieces}). */
  readonly text: string | Uint8Array | Iterable<string>;
  /** The offset of the next page, when more follow. */
  readonly next?: number;
}

/**
 * {@link listConversationMessages}'s answer, serialized, as {@link getConversationJsonPieces} is
 * for the conversation: served from the same cache while the conversation, its messages and its
 * annotations are unchanged; a page of more than {@link SLICED_RENDER_MESSAGES} messages is
 * serialized as it is sent, and not cached.
 */
export async function listConversationMessagesJsonPieces(
  ctx: OperationContext,
  conversationId: string,
  options?: ListOptions,
): Promise<JsonPage> {
  const id = parseId(conversationId, 'conversation id');
  const page = pageOptions(options, LIMITS.messagesPerConversation);
  const rendering = `m${page.transferables ? 't' : 'f'}${page.offset}:${page.limit}`;
  const peeked = ctx.conversationJson.peek(id, rendering);
  if (peeked !== undefined) return cachedPage(peeked);
  const cache = ctx.conversationJson.begin(id);
  try {
    const answer = await ctx.repository.read(async (view) => {
      const cached = await ctx.conversationJson.get(view, id, rendering);
      if (cached !== undefined) return cachedPage(cached);
      const stamps = await readStamps(view, id);
      if (!stamps) throw notFound('conversation', id);
      // Only the page's messages are read (and one past it, to know whether more follow).
      const range = { start: page.offset, end: page.offset + page.limit + 1, stamps: stamps.messages };
      const snapshot = await conversationSnapshot(view, stamps.conversation, undefined, range);
      if (Math.min(page.limit, stamps.conversation.messages.length - page.offset) > SLICED_RENDER_MESSAGES) return snapshot;
      const rendered = conversationMessagesJson(snapshot, page);
      // Kept with the stamps of the page's own messages only: a hit then checks as many as it shows.
      const shown = pageIndices(stamps.messages, range);
      const pageStamps = { ...stamps, messageIds: shown.map((i) => stamps.messageIds[i]!), messages: shown.map((i) => stamps.messages[i]) };
      const text = (snapshot.skipped.length === 0 && ctx.conversationJson.set(pageStamps, rendering, rendered, cache)) || rendered.json;
      return { text, ...(rendered.next === undefined ? {} : { next: rendered.next }) };
    });
    if (!(answer instanceof ConversationSnapshot)) return answer;
    const messages = await renderMessagesInSlices(answer, page);
    return { text: jsonChunks(messages), ...(messages.next === undefined ? {} : { next: messages.next }) };
  } finally {
    ctx.conversationJson.end(cache);
  }
}

const cachedPage = (cached: CachedJson): JsonPage =>
  cached.next === undefined ? { text: cached.bytes } : { text: cached.bytes, next: cached.next };

/** Conversations longer than this are serialized in slices (see {@link getConversationJson}). */
const SLICED_RENDER_MESSAGES = 2_000;

/**
 * The conversation's messages in order, with `indices` giving each message's position. All of
 * them by default; `limit` and `offset` ask for a page.
 */
export async function listConversationMessages(
  ctx: OperationContext,
  conversationId: string,
  options?: ListOptions,
): Promise<ConversationMessages> {
  const id = parseId(conversationId, 'conversation id');
  const page = pageOptions(options, LIMITS.messagesPerConversation);
  const snapshot = await ctx.repository.read(async (view) => {
    const record = await mustGet(view, 'conversations', id, 'conversation');
    // Only the page's messages are read (and one past it, to know whether more follow).
    return conversationSnapshot(view, record, undefined, { start: page.offset, end: page.offset + page.limit + 1 });
  });
  return renderMessagesInSlices(snapshot, page);
}

/**
 * Deletes the conversation with its messages and annotations, and unlinks it from every anchor,
 * asset, website, workstream summary and range. Unless the service keeps no trash, the same
 * transaction moves it, whole with its links, to the trash (see src/operations/trash.ts), from
 * which `restoreConversation` brings it back until it expires.
 */
export async function deleteConversation(ctx: OperationContext, conversationId: string): Promise<void> {
  const id = parseId(conversationId, 'conversation id');
  const now = ctx.now();
  await ctx.repository.transact(async (tx) => {
    await mustGet(tx, 'conversations', id, 'conversation');
    // The records deleted, as they were read to delete them: the trash needs no second read.
    const deleted = await deleteRecord(tx, 'conversations', id, now);
    const trashed = ctx.trashKeepMs > 0 ? trashRecordOf(deleted, id, now, ctx.trashKeepMs) : undefined;
    if (trashed) tx.put('trash', trashed);
  });
}

/**
 * Applies the mutable fields of a Conversation body (name, favorited, type, model, application,
 * pipeline, demo, deleted; `null` clears a field) and bumps `updated`. Ignores `created`,
 * `messages` and every link: those change through their own operations.
 */
export async function updateConversation(ctx: OperationContext, body: unknown, options?: ReadOptions): Promise<Conversation> {
  const { id, ...changes } = parseInput(conversationUpdateSchema, body, 'Conversation');
  const render = renderOptions(options);
  const now = ctx.now();
  const conversation = await ctx.repository.transact(async (tx) => {
    const current = await mustGet(tx, 'conversations', id, 'conversation');
    const updated = withChanges(current, changes, now);
    tx.put('conversations', updated);
    return updated;
  });
  // Its messages are read after the write, not in it: a transaction's reads hold their records
  // (a database locks their rows) until it ends, and the answer needs none of them held.
  const snapshot = await ctx.repository.read((view) => conversationSnapshot(view, conversation));
  return renderConversationInSlices(snapshot, render);
}

/** Every conversation's id, oldest first: what an app lists before it fetches the ones it shows. */
export async function listConversationIdentifiers(ctx: OperationContext): Promise<{ iterable: { id: string }[] }> {
  const { records } = await ctx.repository.read((view) => view.list('conversations'));
  return { iterable: records.map((record) => ({ id: record.id })) };
}

/**
 * What the official client calls when the user focuses a conversation's input, so that a copilot
 * can warm up for it. This service holds nothing per conversation to prepare (a model is loaded
 * with `loadModel`): it checks that the conversation exists (NOT_FOUND if not) and changes nothing.
 */
export async function prepareConversation(ctx: OperationContext, conversationId: string): Promise<void> {
  const id = parseId(conversationId, 'conversation id');
  await ctx.repository.read((view) => mustGet(view, 'conversations', id, 'conversation'));
}
