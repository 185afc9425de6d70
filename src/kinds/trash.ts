import type { BaseRecord, Timestamp } from '../records.js';
import type { AnnotationRecord } from './annotation.js';
import type { ConversationRecord } from './conversation.js';
import { defineKind, FIELD, STAMPED } from './kind.js';
import type { MessageRecord } from './message.js';

/**
 * A deleted conversation, kept whole until it expires (src/operations/trash.ts): the conversation,
 * its messages and its annotations as they were, every link field included, so that a restore puts
 * them back with their links to the records that still exist. Its id is the conversation's; its
 * stamps say when it was deleted. One record however long the conversation: no client route
 * answers it, no search indexes it, no stream sends it.
 */
export interface TrashRecord extends BaseRecord {
  /** When the background purge removes it for good. */
  readonly expires: Timestamp;
  readonly conversation: ConversationRecord;
  /** The conversation's messages, in its order. */
  readonly messages: readonly MessageRecord[];
  readonly annotations: readonly AnnotationRecord[];
}

/** Deleted conversations: written and read by the trash operations only. */
export const trashKind = defineKind<TrashRecord>()({
  collection: 'trash',
  resource: 'trashed conversation',
  required: {
    ...STAMPED,
    expires: FIELD.stamp,
    conversation: FIELD.object,
    messages: FIELD.records,
    annotations: FIELD.records,
  },
});
