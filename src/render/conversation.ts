import type { ReadView } from '../ports.js';
import type { AnnotationRecord, CollectionName, Collections, ConversationRecord, MessageRecord } from '../records.js';
import { covers } from '../relations.js';
import { runAtOnce, runInSlices } from '../slices.js';
import type { Annotation, Conversation, ConversationMessage, ConversationMessages } from '../wire.js';
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
  return rendered;
}

const NONE: readonly string[] = [];

/**
 * Which of the conversation's annotations cover a message, in the order the annotations were made.
 * Coverage is stored on the annotations alone; this is its other side, asked message by message
 * (so a page of messages costs only its own lookups).
 */
export function coverageOf(view: ReadView, conversation: ConversationRecord): { get(messageId: string): readonly string[] } {
  const summaries: [string, AnnotationRecord][] = [];
  for (const id of conversation.annotations) {
    const annotation = view.get('annotations', id);
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
  const rendered: Annotation = { ...fields, messages: idList(messages) };
  if (conversation) rendered.conversation = { id: conversation };
  return rendered;
}

type PageOptions = RenderOptions & { readonly limit?: number; readonly offset?: number };

/**
 * The conversation's messages, in order, as `{ iterable, indices }`; with `page`, only that page,
 * with `next` when more follow (`indices` are positions in the whole conversation).
 */
export function renderMessages(view: ReadView, conversation: ConversationRecord, options: PageOptions): ConversationMessages {
  return runAtOnce(messagesInSlices(view, conversation, options));
}

/** {@link renderMessages}, a slice at a time (see {@link runInSlices}). */
export function renderMessagesInSlices(
  view: ReadView,
  conversation: ConversationRecord,
  options: PageOptions,
): Promise<ConversationMessages> {
  return runInSlices(messagesInSlices(view, conversation, options));
}

function* messagesInSlices(view: ReadView, conversation: ConversationRecord, options: PageOptions): Generator<void, ConversationMessages> {
  const iterable: ConversationMessage[] = [];
  const indices: Record<string, number> = {};
  const coverage = coverageOf(view, conversation);
  const first = options.offset ?? 0;
  const end = first + (options.limit ?? Infinity);
  const ids = conversation.messages;
  let position = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const message = messageAt(view, conversation, i);
    if (!message) continue;
    if (position >= end) return { iterable, indices, next: position };
    if (position >= first) {
      indices[id] = position;
      iterable.push(renderMessage(message, options, coverage.get(id)));
      yield;
    }
    position++;
  }
  return { iterable, indices };
}

/** The conversation's message at `index` of its list: by index from its snapshot, else by id. */
function messageAt(view: ReadView, conversation: ConversationRecord, index: number): MessageRecord | undefined {
  if (view instanceof ConversationSnapshot && view.conversation === conversation) return view.messages[index];
  return view.get('messages', conversation.messages[index]!);
}

/**
 * A view of one conversation's messages and annotations as they are now. Stored records are
 * immutable, so rendering from it later, in slices, answers one consistent state. The messages are
 * kept in the conversation's order, which is how renderers read them; looking one up by id makes
 * an index of them on first use.
 */
export class ConversationSnapshot implements ReadView {
  #byId: Map<string, MessageRecord> | undefined;

  constructor(
    readonly conversation: ConversationRecord,
    /** The records of `conversation.messages`, index for index (undefined where one is missing). */
    readonly messages: readonly (MessageRecord | undefined)[],
    readonly annotations: ReadonlyMap<string, AnnotationRecord>,
  ) {}

  get<C extends CollectionName>(collection: C, id: string): Collections[C] | undefined {
    if (collection === 'annotations') return this.annotations.get(id) as Collections[C] | undefined;
    return collection === 'messages' ? (this.#messagesById().get(id) as Collections[C] | undefined) : undefined;
  }

  list<C extends CollectionName>(collection: C): readonly Collections[C][] {
    if (collection === 'annotations') return [...this.annotations.values()] as Collections[C][];
    return collection === 'messages' ? ([...this.#messagesById().values()] as Collections[C][]) : [];
  }

  #messagesById(): Map<string, MessageRecord> {
    if (!this.#byId) {
      this.#byId = new Map();
      for (const message of this.messages) if (message) this.#byId.set(message.id, message);
    }
    return this.#byId;
  }
}

/**
 * A {@link ConversationSnapshot} of the conversation `record` as `view` sees it. `messages`, when
 * the caller has them (it just stored them), are the records of `record.messages`, index for index.
 */
export function conversationSnapshot(
  view: ReadView,
  record: ConversationRecord,
  messages?: readonly (MessageRecord | undefined)[],
): ConversationSnapshot {
  const ids = record.messages;
  let records = messages;
  if (!records) {
    const found: (MessageRecord | undefined)[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) found[i] = view.get('messages', ids[i]!);
    records = found;
  }
  const annotations = new Map<string, AnnotationRecord>();
  for (const id of record.annotations) {
    const annotation = view.get('annotations', id);
    if (annotation) annotations.set(id, annotation);
  }
  return new ConversationSnapshot(record, records, annotations);
}

/**
 * The conversation as the client expects it. Messages and annotations carry their `reference`,
 * so one read renders the whole conversation; other links are ids.
 */
export function renderConversation(view: ReadView, record: ConversationRecord, options: RenderOptions): Conversation {
  return withMessages(view, record, renderMessages(view, record, { transferables: options.transferables }));
}

/** {@link renderConversation} from a {@link conversationSnapshot}, a slice at a time. */
export async function renderConversationInSlices(
  snapshot: ReadView,
  record: ConversationRecord,
  options: RenderOptions,
): Promise<Conversation> {
  return withMessages(snapshot, record, await renderMessagesInSlices(snapshot, record, { transferables: options.transferables }));
}

function withMessages(view: ReadView, record: ConversationRecord, messages: ConversationMessages): Conversation {
  const annotations: Conversation['annotations']['iterable'] = [];
  for (const id of record.annotations) {
    const annotation = view.get('annotations', id);
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
  for (const field of OPTIONAL_CONVERSATION_FIELDS) {
    const value = record[field];
    if (value !== undefined) (rendered as unknown as Record<string, unknown>)[field] = value;
  }
  return rendered;
}

/** A conversation's fields that are answered only when set, in their answered order. */
export const OPTIONAL_CONVERSATION_FIELDS = ['name', 'favorited', 'deleted', 'model', 'score', 'application', 'pipeline', 'demo'] as const;
