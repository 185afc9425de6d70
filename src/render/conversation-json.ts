import type { MessageRecord, Timestamp } from '../records.js';
import {
  type ConversationSnapshot,
  coverageOf,
  OPTIONAL_CONVERSATION_FIELDS,
  type PageOptions,
  renderAnnotation,
  renderConversation,
  renderMessages,
} from './conversation.js';
import type { RenderedJson } from './json-cache.js';
import { linksJson, messageHasLinks } from './links.js';
import type { RenderOptions } from './lists.js';

// The JSON of `renderConversation`, written straight from the records: byte for byte the same text
// as `JSON.stringify(renderConversation(...))` (a test holds the two together), without building
// the answer's objects first. A conversation that is not in the answer cache is rendered here on
// every GET, and skipping the intermediate objects makes that 1.7 times cheaper at 10,000
// conversations (`npm run bench:render`). Every value from a record goes through JSON.stringify, so
// escaping is never hand-written. A record that lacks a field the fast path writes (only a
// hand-edited file can hold one) is rendered the slow way, so the two never differ.

const json = JSON.stringify;
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

/** The conversation as `renderConversation` answers it, serialized. */
export function conversationJson(snapshot: ConversationSnapshot, options: RenderOptions): string {
  const record = snapshot.conversation;
  const slowly = () => JSON.stringify(renderConversation(snapshot, options));
  if (typeof record.type !== 'string' || !isTimestamp(record.created) || !isTimestamp(record.updated)) return slowly();
  const coverage = coverageOf(snapshot);
  let iterable = '';
  let indices = '';
  let position = 0;
  const ids = record.messages;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const message = snapshot.messages[i];
    if (message === undefined) continue;
    // Damaged on disk (named in `skipped`): its position is kept, as renderMessages keeps it.
    if (message === null) {
      position++;
      continue;
    }
    const reference = messageJson(message, options.transferables, coverage.get(id));
    // `indices` is an object in renderMessages: an integer-like or special key would move.
    if (reference === undefined || INDEX_LIKE.test(id) || id === '__proto__') return slowly();
    const key = json(id);
    const comma = iterable === '' ? '' : ',';
    iterable += `${comma}{"id":${key},"reference":${reference}}`;
    indices += `${comma}${key}:${position}`;
    position++;
  }
  // A repeated id is one key of that object: rare enough (only a hand-edited file has one) to check last.
  if (position > 1 && new Set(record.messages).size !== record.messages.length) return slowly();
  let annotations = '';
  for (const id of record.annotations) {
    const annotation = snapshot.annotations.get(id);
    if (annotation) annotations += `${annotations ? ',' : ''}{"id":${json(id)},"reference":${json(renderAnnotation(annotation))}}`;
  }
  let out =
    `{"id":${json(record.id)},"created":${timestampJson(record.created)},"updated":${timestampJson(record.updated)},"type":${json(record.type)}` +
    `,"messages":{"iterable":[${iterable}],"indices":{${indices}}},"annotations":{"iterable":[${annotations}]}` +
    `,"anchors":${idListJson(record.anchors)},"assets":${idListJson(record.assets)},"websites":${idListJson(record.websites)},"summaries":${idListJson(record.summaries)}` +
    `,"grounding":{"messages":${idListJson(record.groundingMessages)},"temporal":{"workstreams":${idListJson(record.groundingRanges)}}${record.groundingSources && record.groundingSources.length > 0 ? `,"sources":${idListJson(record.groundingSources)}` : ''}}`;
  for (const field of OPTIONAL_CONVERSATION_FIELDS) {
    const value = record[field];
    if (value !== undefined) out += `,"${field}":${json(value)}`;
  }
  return `${out}${skippedJson(snapshot)}}`;
}

/** `,"skipped":[…]` when the snapshot left damaged messages out, else nothing. */
const skippedJson = (snapshot: ConversationSnapshot): string => (snapshot.skipped.length > 0 ? `,"skipped":${json(snapshot.skipped)}` : '');

/**
 * A page of the conversation's messages as `renderMessages` answers it, serialized (byte for byte
 * the text of `JSON.stringify(renderMessages(...))`), with its `next`. The snapshot holds at least
 * the page's messages and the one after it.
 */
export function conversationMessagesJson(snapshot: ConversationSnapshot, options: PageOptions): RenderedJson {
  const slowly = () => {
    const messages = renderMessages(snapshot, options);
    return { json: JSON.stringify(messages), ...(messages.next === undefined ? {} : { next: messages.next }) };
  };
  const coverage = coverageOf(snapshot);
  const first = options.offset ?? 0;
  const end = first + (options.limit ?? Number.POSITIVE_INFINITY);
  const ids = snapshot.conversation.messages;
  let iterable = '';
  let indices = '';
  let next: number | undefined;
  // `indices` holds the page's ids only, so only a repeat among them changes the answer.
  const shown = new Set<string>();
  let repeated = false;
  // As renderMessages counts: a message without a record is not counted, one not read (outside the page) is.
  let position = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const message = snapshot.messages[i];
    if (message === undefined) continue;
    if (position >= end) {
      next = position;
      break;
    }
    if (position >= first && message !== null) {
      const written = messageJson(message, options.transferables, coverage.get(id));
      // `indices` is an object in renderMessages: an integer-like or special key would move.
      if (written === undefined || INDEX_LIKE.test(id) || id === '__proto__') return slowly();
      if (shown.size === shown.add(id).size) repeated = true;
      const comma = iterable === '' ? '' : ',';
      iterable += `${comma}${written}`;
      indices += `${comma}${json(id)}:${position}`;
    }
    position++;
  }
  // A repeated id is one key of that object (only a hand-edited file has one).
  if (repeated) return slowly();
  const text = `{"iterable":[${iterable}],"indices":{${indices}}${next === undefined ? '' : `,"next":${next}`}${skippedJson(snapshot)}}`;
  return next === undefined ? { json: text } : { json: text, next };
}

/** A message as `renderMessage` answers it, serialized. */
function messageJson(message: MessageRecord, transferables: boolean, annotations: readonly string[] | undefined): string | undefined {
  if (
    typeof message.conversation !== 'string' ||
    typeof message.role !== 'string' ||
    !isTimestamp(message.created) ||
    !isTimestamp(message.updated)
  ) {
    return undefined;
  }
  let out = `{"id":${json(message.id)},"created":${timestampJson(message.created)},"updated":${timestampJson(message.updated)},"conversation":{"id":${json(message.conversation)}},"role":${json(message.role)}`;
  const fragment = message.fragment;
  if (fragment)
    out += `,"fragment":${transferables ? json(fragment) : fragment.metadata ? `{"metadata":${json(fragment.metadata)}}` : '{}'}`;
  if (message.sentiment) out += `,"sentiment":${json(message.sentiment)}`;
  if (message.model) out += `,"model":${json(message.model)}`;
  if (message.score) out += `,"score":${json(message.score)}`;
  if (message.deleted) out += `,"deleted":${timestampJson(message.deleted)}`;
  if (annotations && annotations.length > 0) out += `,"annotations":${idListJson(annotations)}`;
  return messageHasLinks(message) ? `${out}${linksJson('messages', message)}}` : `${out}}`;
}

function isTimestamp(value: unknown): value is Timestamp {
  return typeof value === 'object' && value !== null;
}

function timestampJson(timestamp: Timestamp): string {
  // Most timestamps hold only `value`; the rest keep their stored keys and order through JSON.stringify.
  return typeof timestamp.value === 'string' && onlyValue(timestamp) ? `{"value":${json(timestamp.value)}}` : json(timestamp);
}

function onlyValue(timestamp: Timestamp): boolean {
  for (const key in timestamp) if (key !== 'value') return false;
  return true;
}

function idListJson(ids: readonly string[]): string {
  let out = '';
  for (let i = 0; i < ids.length; i++) out += `${i === 0 ? '' : ','}{"id":${json(ids[i])}}`;
  return `{"iterable":[${out}]}`;
}
