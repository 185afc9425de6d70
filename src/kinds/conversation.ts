import type { BaseRecord, ConversationType, Score, Timestamp } from '../records.js';
import { defineKind, FIELD, STAMPED } from './kind.js';

export interface ConversationRecord extends BaseRecord {
  readonly type: ConversationType;
  readonly name?: string;
  readonly favorited?: boolean;
  readonly deleted?: Timestamp;
  readonly model?: { readonly id: string };
  readonly score?: Score;
  readonly application?: Readonly<Record<string, unknown>>;
  readonly pipeline?: Readonly<Record<string, unknown>>;
  readonly demo?: boolean;
  /** Ids of the conversation's messages, in order. */
  readonly messages: readonly string[];
  readonly annotations: readonly string[];
  readonly anchors: readonly string[];
  readonly assets: readonly string[];
  readonly websites: readonly string[];
  /** Workstream summaries. */
  readonly summaries: readonly string[];
  /** Messages (of any conversation) that ground this one. */
  readonly groundingMessages: readonly string[];
  /** Workstream ranges that ground this one in time. */
  readonly groundingRanges: readonly string[];
  /** Workstream pattern-engine sources that ground this one (absent until the first). */
  readonly groundingSources?: readonly string[];
}

/**
 * A new conversation record with no messages and no links yet: `fields` (its type at least), then
 * its id and stamps and empty lists, which win over anything of those names in `fields` (a seed may
 * carry keys the service does not take).
 */
export function emptyConversation(
  id: string,
  now: Timestamp,
  fields: Omit<ConversationRecord, keyof BaseRecord | LinkLists>,
): ConversationRecord {
  return {
    ...fields,
    id,
    created: now,
    updated: now,
    messages: [],
    annotations: [],
    anchors: [],
    assets: [],
    websites: [],
    summaries: [],
    groundingMessages: [],
    groundingRanges: [],
  };
}

/** The id lists every conversation record holds. */
type LinkLists = 'messages' | 'annotations' | 'anchors' | 'assets' | 'websites' | 'summaries' | 'groundingMessages' | 'groundingRanges';

/** Conversations: created, read and changed by their own operations (src/operations/conversations.ts). */
export const conversationKind = defineKind<ConversationRecord>()({
  collection: 'conversations',
  resource: 'conversation',
  required: {
    ...STAMPED,
    type: FIELD.text,
    messages: FIELD.ids,
    annotations: FIELD.ids,
    anchors: FIELD.ids,
    assets: FIELD.ids,
    websites: FIELD.ids,
    summaries: FIELD.ids,
    groundingMessages: FIELD.ids,
    groundingRanges: FIELD.ids,
  },
});
