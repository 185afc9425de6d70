import type { ReadView } from '../ports.js';
import type { AnnotationRecord, ConversationRecord, MessageRecord } from '../records.js';
import type { Annotation, Conversation, ConversationMessage, ConversationMessages } from '../wire.js';
import { idList, renderFragment, type RenderOptions } from './lists.js';

// Renderers copy fields one by one rather than with object rest: this is the hot path of every
// read, and rest spreads are several times slower in V8.

export function renderMessage(message: MessageRecord, options: RenderOptions): ConversationMessage {
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
  if (message.annotations.length > 0) rendered.annotations = idList(message.annotations);
  return rendered;
}

export function renderAnnotation(annotation: AnnotationRecord): Annotation {
  const { conversation, messages, ...fields } = annotation;
  const rendered: Annotation = { ...fields, messages: idList(messages) };
  if (conversation) rendered.conversation = { id: conversation };
  return rendered;
}

/**
 * The conversation's messages, in order, as `{ iterable, indices }`; with `page`, only that page,
 * with `next` when more follow (`indices` are positions in the whole conversation).
 */
export function renderMessages(
  view: ReadView,
  conversation: ConversationRecord,
  options: RenderOptions & { readonly limit?: number; readonly offset?: number },
): ConversationMessages {
  const iterable: ConversationMessage[] = [];
  const indices: Record<string, number> = {};
  const first = options.offset ?? 0;
  const end = first + (options.limit ?? Infinity);
  let position = 0;
  for (const id of conversation.messages) {
    const message = view.get('messages', id);
    if (!message) continue;
    if (position >= end) return { iterable, indices, next: position };
    if (position >= first) {
      indices[id] = position;
      iterable.push(renderMessage(message, options));
    }
    position++;
  }
  return { iterable, indices };
}

/**
 * The conversation as the client expects it. Messages and annotations carry their `reference`,
 * so one read renders the whole conversation; other links are ids.
 */
export function renderConversation(view: ReadView, record: ConversationRecord, options: RenderOptions): Conversation {
  const messages = renderMessages(view, record, { transferables: options.transferables });
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
