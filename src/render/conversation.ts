import type { ReadView } from '../ports.js';
import type { AnnotationRecord, ConversationRecord, MessageRecord } from '../records.js';
import type { Annotation, Conversation, ConversationMessage, ConversationMessages } from '../wire.js';
import { idList, indicesOf, renderFragment, type RenderOptions } from './lists.js';

export function renderMessage(message: MessageRecord, options: RenderOptions): ConversationMessage {
  const { conversation, fragment, groundedConversations: _internal, annotations, ...fields } = message;
  const rendered: ConversationMessage = { ...fields, conversation: { id: conversation } };
  const answered = renderFragment(fragment, options);
  if (answered) rendered.fragment = answered;
  if (annotations.length > 0) rendered.annotations = idList(annotations);
  return rendered;
}

export function renderAnnotation(annotation: AnnotationRecord): Annotation {
  const { conversation, messages, ...fields } = annotation;
  const rendered: Annotation = { ...fields, messages: idList(messages) };
  if (conversation) rendered.conversation = { id: conversation };
  return rendered;
}

/** The conversation's messages, in order, as `{ iterable, indices }`. */
export function renderMessages(view: ReadView, conversation: ConversationRecord, options: RenderOptions): ConversationMessages {
  const iterable: ConversationMessage[] = [];
  for (const id of conversation.messages) {
    const message = view.get('messages', id);
    if (message) iterable.push(renderMessage(message, options));
  }
  return { iterable, indices: indicesOf(iterable.map((message) => message.id)) };
}

/**
 * The conversation as the client expects it. Messages and annotations carry their `reference`,
 * so one read renders the whole conversation; other links are ids.
 */
export function renderConversation(view: ReadView, record: ConversationRecord, options: RenderOptions): Conversation {
  const {
    messages,
    annotations,
    anchors,
    assets,
    websites,
    summaries,
    groundingMessages,
    groundingRanges,
    ...fields
  } = record;
  const rendered = renderMessages(view, record, options);
  return {
    ...fields,
    messages: {
      iterable: rendered.iterable.map((message) => ({ id: message.id, reference: message })),
      indices: rendered.indices,
    },
    annotations: {
      iterable: annotations.flatMap((id) => {
        const annotation = view.get('annotations', id);
        return annotation ? [{ id, reference: renderAnnotation(annotation) }] : [];
      }),
    },
    anchors: idList(anchors),
    assets: idList(assets),
    websites: idList(websites),
    summaries: idList(summaries),
    grounding: { messages: idList(groundingMessages), temporal: { workstreams: idList(groundingRanges) } },
  };
}
