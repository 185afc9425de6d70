import { readSkippingDamaged, type SkippedRecord } from '../damaged-records.js';
import type { ReadView } from '../ports.js';
import type { AnnotationRecord, ConversationRecord, MessageRecord } from '../records.js';
import { covers } from '../relations.js';
import { runAtOnce, runInSlices } from '../slices.js';
import type { Annotation, Conversation, ConversationMessage, ConversationMessages } from '../wire.js';
import { messageHasLinks, withLinks } from './links.js';
import { idList, type RenderOptions, renderFragment } from './lists.js';

// Renderers copy fields one by one rather than with object rest: this is the hot path of every
// read, and rest spreads are several times slower in V8.

/**
 * A message as the client expects it. `annotations` are the summaries covering it (see
 * {@link coverageOf}); a message outside a conversation's render has none to show.
 */
export function renderMessage(message: MessageRecord, options: RenderOptions, annotations: readonly string[] = NONE): ConversationMessage {
  const rendered: ConversationMessage = {
    id: message.id,
    created: message.created,
    updated: message.updated,
    conversation: { id: message.conversation },
    role: message.role,
  };
  const fragment = renderFragment(message.fragment, options);
  if (fragment) rendered.fragment = fragment;
  if (message.sentiment) rendered.sentiment = message.sentiment;
  if (message.model) rendered.model = message.model;
  if (message.score) rendered.score = message.score;
  if (message.deleted) rendered.deleted = message.deleted;
  if (annotations.length > 0) rendered.annotations = idList(annotations);
  return messageHasLinks(message) ? withLinks<ConversationMessage>('messages', message, rendered) : rendered;
}

const NONE: readonly string[] = [];

/**
 * Which of the conversation's annotations cover a message, in the order the annotations were made.
 * Coverage is stored on the annotations alone; this is its other side, asked message by message
 * (so a page of messages costs only its own lookups).
 */
export function coverageOf(snapshot: ConversationSnapshot): { get(messageId: string): readonly string[] } {
  const summaries: [string, AnnotationRecord][] = [];
  for (const id of snapshot.conversation.annotations) {
    const annotation = snapshot.annotations.get(id);
    if (annotation && annotation.messages.length > 0) summaries.push([id, annotation]);
  }
  return {
    get(messageId) {
      let ids: string[] | undefined;
      for (const [id, annotation] of summaries) if (covers(annotation, messageId)) (ids ??= []).push(id);
      return ids ?? NONE;
    },
  };
}

export function renderAnnotation(annotation: AnnotationRecord): Annotation {
  const { conversation, messages, ...fields } = annotation;
  const rendered = { ...fields, messages: idList(messages) } as unknown as Annotation;
  if (conversation) rendered.conversation = { id: conversation };
  return withLinks<Annotation>('annotations', annotation, rendered);
}

/** How a page of messages is answered: with or without transferables, from `offset`, at most `limit`. */
export type PageOptions = RenderOptions & { readonly limit?: number; readonly offset?: number };

/**
 * The conversation's messages, in order, as `{ iterable, indices }`; with `page`, only that page,
 * with `next` when more follow (`indices` are positions in the whole conversation).
 */
export function renderMessages(snapshot: ConversationSnapshot, options: PageOptions): ConversationMessages {
  return runAtOnce(messagesInSlices(snapshot, options));
}

/** {@link renderMessages}, a slice at a time (see {@link runInSlices}). */
export function renderMessagesInSlices(snapshot: ConversationSnapshot, options: PageOptions): Promise<ConversationMessages> {
  return runInSlices(messagesInSlices(snapshot, options));
}

function* messagesInSlices(snapshot: ConversationSnapshot, options: PageOptions): Generator<void, ConversationMessages> {
  const iterable: ConversationMessage[] = [];
  const indices: Record<string, number> = {};
  const coverage = coverageOf(snapshot);
  const first = options.offset ?? 0;
  const end = first + (options.limit ?? Infinity);
  const ids = snapshot.conversation.messages;
  let position = 0;
  const answer = (next?: number): ConversationMessages => {
    const messages: ConversationMessages = next === undefined ? { iterable, indices } : { iterable, indices, next };
    if (snapshot.skipped.length > 0) messages.skipped = [...snapshot.skipped];
    return messages;
  };
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const message = snapshot.messages[i];
    // Missing (only a damaged store lacks one): not counted. Not read (outside the page), or
    // damaged on disk (named in `skipped`): counted, not shown.
    if (message === undefined) continue;
    if (position >= end) return answer(position);
    if (position >= first && message !== null) {
      indices[id] = position;
      iterable.push(renderMessage(message, options, coverage.get(id)));
      yield;
    }
    position++;
  }
  return answer();
}

/**
 * One conversation with its messages and annotations as they were read: renderers look records up
 * here, synchronously, and stored records are immutable, so rendering from it later, in slices,
 * answers one consistent state.
 */
export class ConversationSnapshot {
  constructor(
    readonly conversation: ConversationRecord,
    /**
     * The records of `conversation.messages`, index for index: undefined where one is missing,
     * null where it was not read (outside the page asked for) or is damaged on disk.
     */
    readonly messages: readonly (MessageRecord | undefined | null)[],
    readonly annotations: ReadonlyMap<string, AnnotationRecord>,
    /** The messages left out because they are damaged on disk: the answer names them in its `skipped`. */
    readonly skipped: readonly SkippedRecord[] = [],
  ) {}
}

/**
 * Positions `start` (included) to `end` (excluded) of a conversation's messages; `stamps`, when the
 * caller has read them, are the version stamps of all its messages, index for index.
 */
export interface PageRange {
  readonly start: number;
  readonly end: number;
  readonly stamps?: readonly (number | undefined)[];
}

/**
 * The indices in a conversation's message list of the messages at positions `start` to `end`.
 * Positions count the messages that exist: their stamps (no record read) say which do, so a page
 * starts where the whole conversation's render would put it.
 */
export function pageIndices(stamps: readonly (number | undefined)[], range: { readonly start: number; readonly end: number }): number[] {
  const wanted: number[] = [];
  let position = 0;
  for (let i = 0; i < stamps.length && position < range.end; i++) {
    if (stamps[i] === undefined) continue;
    if (position >= range.start) wanted.push(i);
    position++;
  }
  return wanted;
}

/**
 * A {@link ConversationSnapshot} of the conversation `record` as `view` sees it: its messages
 * (only those of positions `range.start` to `range.end` when given: a page) and annotations, each
 * kind read at once. `messages`, when the caller has them (it just stored them), are the records
 * of `record.messages`, index for index. A message damaged on disk is left out (counted in the
 * positions, as it exists) and named in the snapshot's `skipped`.
 */
export async function conversationSnapshot(
  view: ReadView,
  record: ConversationRecord,
  messages?: readonly (MessageRecord | undefined)[],
  range?: PageRange,
): Promise<ConversationSnapshot> {
  let records: readonly (MessageRecord | undefined | null)[] | undefined = messages;
  const skipped: SkippedRecord[] = [];
  if (!records) {
    const ids = record.messages;
    if (range && (range.start > 0 || range.end < ids.length)) {
      const stamps = range.stamps ?? (await view.versions('messages', ids));
      const wanted = pageIndices(stamps, range);
      const all: (MessageRecord | undefined | null)[] = new Array(ids.length);
      for (let i = 0; i < ids.length; i++) if (stamps[i] !== undefined) all[i] = null;
      const page = await readSkippingDamaged(
        view,
        'messages',
        wanted.map((i) => ids[i]!),
        skipped,
      );
      const damaged = new Set(skipped.map((message) => message.id));
      wanted.forEach((index, j) => {
        all[index] = page[j] ?? (damaged.has(ids[index]!) ? null : undefined);
      });
      records = all;
    } else {
      const read: (MessageRecord | undefined | null)[] = await readSkippingDamaged(view, 'messages', ids, skipped);
      if (skipped.length > 0) {
        const damaged = new Set(skipped.map((message) => message.id));
        for (let i = 0; i < ids.length; i++) if (read[i] === undefined && damaged.has(ids[i]!)) read[i] = null;
      }
      records = read;
    }
  }
  const found = await view.getMany('annotations', record.annotations);
  const annotations = new Map<string, AnnotationRecord>();
  record.annotations.forEach((id, i) => found[i] && annotations.set(id, found[i]));
  return new ConversationSnapshot(record, records, annotations, skipped);
}

/**
 * The conversation as the client expects it. Messages and annotations carry their `reference`,
 * so one read renders the whole conversation; other links are ids.
 */
export function renderConversation(snapshot: ConversationSnapshot, options: RenderOptions): Conversation {
  return withMessages(snapshot, renderMessages(snapshot, { transferables: options.transferables }));
}

/** {@link renderConversation}, a slice at a time. */
export async function renderConversationInSlices(snapshot: ConversationSnapshot, options: RenderOptions): Promise<Conversation> {
  return withMessages(snapshot, await renderMessagesInSlices(snapshot, { transferables: options.transferables }));
}

/**
 * The conversation with its messages by id alone (none of them read): what a search hit shows.
 * The client's Conversation allows it (a message's `reference` is optional); a search answer of
 * twenty conversations stays light whatever their length.
 */
export function renderConversationOutline(snapshot: ConversationSnapshot): Conversation {
  const ids = snapshot.conversation.messages;
  const indices: Record<string, number> = {};
  ids.forEach((id, i) => {
    indices[id] = i;
  });
  return { ...withMessages(snapshot, { iterable: [], indices: {} }), messages: { iterable: ids.map((id) => ({ id })), indices } };
}

function withMessages(snapshot: ConversationSnapshot, messages: ConversationMessages): Conversation {
  const record = snapshot.conversation;
  const annotations: Conversation['annotations']['iterable'] = [];
  for (const id of record.annotations) {
    const annotation = snapshot.annotations.get(id);
    if (annotation) annotations.push({ id, reference: renderAnnotation(annotation) });
  }
  const rendered: Conversation = {
    id: record.id,
    created: record.created,
    updated: record.updated,
    type: record.type,
    messages: { iterable: messages.iterable.map((message) => ({ id: message.id, reference: message })), indices: messages.indices },
    annotations: { iterable: annotations },
    anchors: idList(record.anchors),
    assets: idList(record.assets),
    websites: idList(record.websites),
    summaries: idList(record.summaries),
    grounding: { messages: idList(record.groundingMessages), temporal: { workstreams: idList(record.groundingRanges) } },
  };
  if (record.groundingSources && record.groundingSources.length > 0) rendered.grounding.sources = idList(record.groundingSources);
  for (const field of OPTIONAL_CONVERSATION_FIELDS) {
    const value = record[field];
    if (value !== undefined) (rendered as unknown as Record<string, unknown>)[field] = value;
  }
  if (snapshot.skipped.length > 0) rendered.skipped = [...snapshot.skipped];
  return rendered;
}

/** A conversation's fields that are answered only when set, in their answered order. */
export const OPTIONAL_CONVERSATION_FIELDS = ['name', 'favorited', 'deleted', 'model', 'score', 'application', 'pipeline', 'demo'] as const;
