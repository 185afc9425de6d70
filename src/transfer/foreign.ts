import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import { emptyConversation } from '../kinds/conversation.js';
import { LIMITS } from '../limits.js';
import type { ConversationRecord, MessageRecord, MessageRole, Timestamp } from '../records.js';

/** A conversation of another program's export, flattened along its chosen branch. */
export interface ForeignConversation {
  /** Its id in that program: what the imported ids derive from. */
  readonly sourceId: string;
  readonly title: string | undefined;
  readonly created: Timestamp;
  readonly updated: Timestamp;
  readonly messages: readonly ForeignMessage[];
}

export interface ForeignMessage {
  readonly sourceId: string;
  readonly role: MessageRole;
  readonly text: string;
  readonly created: Timestamp;
}

/** The programs whose exports are read: the names ids derive from. */
export type ForeignSource = 'chatgpt' | 'openwebui';

/**
 * An id derived from a source's own: the same source id gives the same id on every import, so a
 * second import of a file finds its conversations stored. A name-based UUID (version 5's layout,
 * SHA-1 of the service's name, the source and its id).
 */
export function derivedId(source: ForeignSource, ...parts: readonly string[]): string {
  const hash = createHash('sha1')
    .update(['conversation-model-service', source, ...parts].join('\u0000'))
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A time given in seconds since 1970 (or milliseconds, when it is too large for seconds), as a timestamp; undefined when it is none. */
export function epochStamp(value: unknown): Timestamp | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) return undefined;
  const ms = number > 1e12 ? number : number * 1000;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999 ? undefined : { value: date.toISOString() };
}

/** The records a foreign conversation becomes: the conversation, then its messages in order. */
export function foreignRecords(
  source: ForeignSource,
  conversation: ForeignConversation,
): { conversation: ConversationRecord; messages: MessageRecord[] } {
  const id = derivedId(source, conversation.sourceId);
  // A source id given twice (or none, numbered by place) still makes one message each.
  const taken = new Set<string>();
  const messageId = (sourceId: string, index: number) => {
    let messageId = derivedId(source, conversation.sourceId, sourceId);
    if (taken.has(messageId)) messageId = derivedId(source, conversation.sourceId, sourceId, String(index));
    taken.add(messageId);
    return messageId;
  };
  const messages: MessageRecord[] = conversation.messages.map((message, index) => ({
    role: message.role,
    fragment: { string: { raw: message.text } },
    id: messageId(message.sourceId, index),
    created: message.created,
    updated: message.created,
    conversation: id,
    groundedConversations: [],
  }));
  const fields = conversation.title === undefined ? { type: 'COPILOT' as const } : { type: 'COPILOT' as const, name: conversation.title };
  return {
    conversation: {
      ...emptyConversation(id, conversation.created, fields),
      updated: conversation.updated,
      messages: messages.map((message) => message.id),
    },
    messages,
  };
}

/**
 * The chosen branch of a message tree: from `leaf` up through each node's parent to the root,
 * then read root first. A parent named twice (a cycle) or a branch longer than a conversation may
 * be is refused with `fail`.
 */
export function branchTo<N>(
  leaf: string,
  node: (id: string) => N | undefined,
  parentOf: (node: N) => unknown,
  fail: (why: string) => never,
): N[] {
  const branch: N[] = [];
  const seen = new Set<string>();
  for (let id: unknown = leaf; typeof id === 'string' && id !== ''; ) {
    if (seen.has(id)) fail(`its message tree has a cycle at "${id.slice(0, 80)}"`);
    seen.add(id);
    const current = node(id);
    if (current === undefined) break;
    branch.push(current);
    if (branch.length > LIMITS.messagesPerConversation * 4) fail('its chosen branch is longer than a conversation may be');
    id = parentOf(current);
  }
  return branch.reverse();
}

/** The role of a message of another program, or undefined for one that is not kept (a tool's). */
export function roleOf(role: unknown): MessageRole | undefined {
  switch (role) {
    case 'user':
      return 'USER';
    case 'assistant':
      return 'ASSISTANT';
    case 'system':
      return 'SYSTEM';
    default:
      return undefined;
  }
}

/** INVALID_INPUT for a conversation of a foreign file, naming it by index, id and title. */
export function foreignError(source: string, index: number, id: unknown, title: unknown, problem: string): ServiceError {
  const named = typeof id === 'string' ? ` "${id.slice(0, 80)}"` : '';
  const titled = typeof title === 'string' && title ? ` (${JSON.stringify(title.slice(0, 80))})` : '';
  return new ServiceError(
    'INVALID_INPUT',
    `Conversation ${index} of the ${source} file${named}${titled} cannot be imported: ${problem}. Nothing was imported.`,
    {
      resource: 'conversation',
      ...(typeof id === 'string' ? { id: id.slice(0, 512) } : {}),
      issues: [{ path: [index], message: problem }],
    },
  );
}
