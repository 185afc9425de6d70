import type { BaseRecord, Fragment, MessageRole, Score, Timestamp } from '../records.js';
import { renderMessage } from '../render/conversation.js';
import { seededConversationMessageSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface MessageRecord extends BaseRecord {
  readonly conversation: string;
  readonly role: MessageRole;
  readonly fragment?: Fragment;
  readonly sentiment?: 'UNKNOWN' | 'LIKE' | 'DISLIKE' | 'REPORT';
  readonly model?: Readonly<Record<string, unknown>>;
  readonly score?: Score;
  readonly deleted?: Timestamp;
  /**
   * Conversations this message grounds. Not part of the wire format (the API keeps this link on the
   * conversation only); kept so deleting the message can clean every conversation that names it.
   */
  readonly groundedConversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
  readonly anchors?: readonly string[];
  readonly assets?: readonly string[];
  readonly persons?: readonly string[];
  readonly ranges?: readonly string[];
  readonly tags?: readonly string[];
  readonly websites?: readonly string[];
  readonly workstreamEvents?: readonly string[];
  readonly sources?: readonly string[];
  readonly summaries?: readonly string[];
}

/** Messages: created at the end of their conversation, deleted on their own or with it. */
export const messageKind = defineKind<MessageRecord>()({
  collection: 'messages',
  resource: 'message',
  required: { ...STAMPED, conversation: FIELD.text, role: FIELD.text, groundedConversations: FIELD.ids },
  records: recordOperations<MessageRecord>()({
    seedName: 'SeededConversationMessage',
    seed: seededConversationMessageSchema,
    build: ({ conversation: _c, created, ...seed }, context) => ({
      ...seed,
      ...stamps(context),
      created: created ?? context.now,
      // Set by linking it to its conversation, which must exist.
      conversation: '',
      groundedConversations: [],
    }),
    render: (record, options) => renderMessage(record, options),
    conversationOf: (seed) => seed.conversation.id,
    conversationLink: 'conversationMessages',
  }),
});
